package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.concurrent.DaemonThreads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Runs the prune cycle ({@code retention.prune.interval}, off with {@code retention.prune.enabled=false}) and the
 * status refresh ({@code retention.status.refresh-interval}) on two threads of its own: a long prune of a large
 * backlog must not hold up the application's shared {@code @Scheduled} thread.
 */
@Component
class RetentionScheduler implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, Ordered {

    private static final Logger log = LoggerFactory.getLogger(RetentionScheduler.class);

    private final OutboxPruner pruner;
    private final RetentionStatusRefresher refresher;
    private final RetentionProperties properties;
    private final Clock clock;
    private volatile ScheduledExecutorService executor;

    RetentionScheduler(OutboxPruner pruner, RetentionStatusRefresher refresher, RetentionProperties properties,
            Clock clock) {
        this.pruner = pruner;
        this.refresher = refresher;
        this.properties = properties;
        this.clock = clock;
    }

    @Override
    public void start() {
        executor = Executors.newScheduledThreadPool(2, DaemonThreads.numbered("retention"));
        if (properties.prune().enabled()) {
            long interval = properties.prune().interval().toMillis();
            executor.scheduleWithFixedDelay(this::pruneCycle, interval, interval, TimeUnit.MILLISECONDS);
        }
        if (properties.status().enabled()) {
            long interval = properties.status().refreshInterval().toMillis();
            executor.scheduleWithFixedDelay(this::refresh, Math.min(interval, 1000), interval,
                    TimeUnit.MILLISECONDS);
        }
    }

    void pruneCycle() {
        Instant started = clock.instant();
        try {
            long pruned = pruner.pruneCandidates().stream().mapToLong(OutboxPruner.PruneOutcome::pruned).sum();
            if (pruned > 0) {
                log.info("prune cycle deleted {} outbox events in {}", pruned,
                        Duration.between(started, clock.instant()));
            }
            refresher.refresh();
        } catch (RuntimeException e) {
            log.warn("prune cycle failed; the next cycle retries", e);
        }
    }

    private void refresh() {
        try {
            refresher.refresh();
        } catch (RuntimeException e) {
            log.warn("retention status refresh failed; the next one retries", e);
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService e = executor;
        if (e != null) {
            e.shutdownNow();
            try {
                e.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
        executor = null;
    }

    /** Stops background database work as soon as the context starts closing, before anything else shuts down. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public boolean isRunning() {
        return executor != null;
    }
}
