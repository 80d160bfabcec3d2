package com.acme.catalog.resolver.idempotency;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.concurrent.DaemonThreads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * Runs the {@link KeyPruner} every {@code resolver.idempotency.prune-interval} (off with
 * {@code resolver.idempotency.prune-enabled=false}) on a thread of its own.
 */
@Component
class KeyPruneScheduler implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

    private static final Logger log = LoggerFactory.getLogger(KeyPruneScheduler.class);

    private final KeyPruner pruner;
    private final IdempotencyProperties properties;
    private volatile ScheduledExecutorService executor;

    KeyPruneScheduler(KeyPruner pruner, IdempotencyProperties properties) {
        this.pruner = pruner;
        this.properties = properties;
    }

    @Override
    public void start() {
        executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("idempotency-pruner"));
        if (properties.pruneEnabled()) {
            long interval = properties.pruneInterval().toMillis();
            executor.scheduleWithFixedDelay(this::run, interval, interval, TimeUnit.MILLISECONDS);
        }
    }

    private void run() {
        try {
            long deleted = pruner.prune();
            if (deleted > 0) {
                log.debug("pruned {} idempotency keys older than {}", deleted, properties.window());
            }
        } catch (RuntimeException e) {
            log.warn("idempotency key pruning failed; the next pass retries", e);
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService e = executor;
        executor = null;
        DaemonThreads.stop(e, Duration.ofSeconds(10));
    }

    /** Stops background database work as soon as the context starts closing. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public boolean isRunning() {
        return executor != null;
    }
}
