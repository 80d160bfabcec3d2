package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import com.acme.catalog.resolver.periodic.PeriodicTasks;

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
    private volatile PeriodicTasks tasks;

    RetentionScheduler(OutboxPruner pruner, RetentionStatusRefresher refresher, RetentionProperties properties,
            Clock clock) {
        this.pruner = pruner;
        this.refresher = refresher;
        this.properties = properties;
        this.clock = clock;
    }

    @Override
    public void start() {
        PeriodicTasks t = PeriodicTasks.onThreads("retention", 2);
        if (properties.prune().enabled()) {
            t.every(properties.prune().interval(), this::pruneCycle,
                    e -> log.warn("prune cycle failed; the next cycle retries", e));
        }
        if (properties.status().enabled()) {
            Duration interval = properties.status().refreshInterval();
            t.every(Duration.ofMillis(Math.min(interval.toMillis(), 1000)), interval, refresher::refresh,
                    e -> log.warn("retention status refresh failed; the next one retries", e));
        }
        tasks = t;
    }

    private void pruneCycle() {
        Instant started = clock.instant();
        long pruned = pruner.pruneCandidates().stream().mapToLong(OutboxPruner.PruneOutcome::pruned).sum();
        if (pruned > 0) {
            log.info("prune cycle deleted {} outbox events in {}", pruned, Duration.between(started, clock.instant()));
        }
        refresher.refresh();
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t != null) {
            t.stop(Duration.ofSeconds(10));
        }
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
        return tasks != null;
    }
}
