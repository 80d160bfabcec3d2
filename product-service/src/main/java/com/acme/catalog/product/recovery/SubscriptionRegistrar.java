package com.acme.catalog.product.recovery;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.platform.retry.Backoff;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Subscribes this product at the resolver to each pattern of {@code PRODUCT_STREAMS} ({@code tenant/*}, {@code *})
 * once it is ready, retrying with the recovery worker's backoff until the resolver accepts: from then on the
 * resolver registers the product in every matching stream, existing and future (in each new stream's first write),
 * and the relay delivers them; the first delivery of a stream opens it ({@code inbox.StreamAdmission}). A
 * subscription is idempotent, so every start subscribes again.
 */
@Component
class SubscriptionRegistrar implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SubscriptionRegistrar.class);

    private final ResolverClient resolver;
    private final ProductStreamsProperties streams;
    private final RecoveryProperties properties;
    private final Deque<String> pending = new ArrayDeque<>();
    private ScheduledExecutorService thread;
    private Backoff backoff;
    private volatile boolean running;

    SubscriptionRegistrar(ResolverClient resolver, ProductStreamsProperties streams, RecoveryProperties properties) {
        this.resolver = resolver;
        this.streams = streams;
        this.properties = properties;
    }

    @EventListener(ApplicationReadyEvent.class)
    synchronized void subscribeAll() {
        if (!running || streams.tenantPatterns().isEmpty()) {
            return;
        }
        pending.addAll(streams.tenantPatterns());
        thread.execute(this::attempt);
    }

    private void attempt() {
        String pattern;
        while ((pattern = next()) != null) {
            try {
                resolver.subscribe(pattern);
                log.info("subscribed to {}/* at the resolver: its streams are delivered here", pattern);
                synchronized (this) {
                    pending.poll();
                }
                backoff.succeeded();
            } catch (RuntimeException e) {
                Duration wait = backoff.failed();
                log.warn("subscribing to {}/* at the resolver failed ({} time(s)); next attempt in {} ms: {}",
                        pattern, backoff.failures(), wait.toMillis(), e.getMessage());
                if (running) {
                    thread.schedule(this::attempt, wait.toMillis(), TimeUnit.MILLISECONDS);
                }
                return;
            }
        }
    }

    private synchronized String next() {
        return running ? pending.peek() : null;
    }

    @Override
    public synchronized void start() {
        thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("subscription-registrar"));
        backoff = new Backoff(properties.initialBackoff(), properties.maxBackoff(), Clock.systemUTC());
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
