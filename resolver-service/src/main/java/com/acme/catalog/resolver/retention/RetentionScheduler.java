package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Runs the prune cycle ({@code retention.prune.interval}, off with {@code retention.prune.enabled=false}) and the
 * status refresh ({@code retention.status.refresh-interval}) on two threads of its own, so a long prune of a large
 * backlog never holds up the status refresh.
 */
@Component
class RetentionScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(RetentionScheduler.class);

    private final OutboxPruner pruner;
    private final RetentionStatusRefresher refresher;
    private final RetentionProperties properties;
    private final Clock clock;

    RetentionScheduler(OutboxPruner pruner, RetentionStatusRefresher refresher, RetentionProperties properties,
            Clock clock) {
        super("retention", 2);
        this.pruner = pruner;
        this.refresher = refresher;
        this.properties = properties;
        this.clock = clock;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        if (properties.prune().enabled()) {
            tasks.every(properties.prune().interval(), this::pruneCycle,
                    e -> log.warn("prune cycle failed; the next cycle retries", e));
        }
        if (properties.status().enabled()) {
            Duration interval = properties.status().refreshInterval();
            tasks.every(Duration.ofMillis(Math.min(interval.toMillis(), 1000)), interval, refresher::refresh,
                    e -> log.warn("retention status refresh failed; the next one retries", e));
        }
    }

    private void pruneCycle() {
        Instant started = clock.instant();
        long pruned = pruner.pruneCandidates().stream().mapToLong(OutboxPruner.PruneOutcome::pruned).sum();
        if (pruned > 0) {
            log.info("prune cycle deleted {} outbox events in {}", pruned, Duration.between(started, clock.instant()));
        }
        refresher.refresh();
    }

    /** Stops before the other listeners of the context's closing: a prune in flight ends first. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
