package com.acme.catalog.resolver.idempotency;

import java.time.Duration;

import com.acme.catalog.resolver.periodic.PeriodicTasks;

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
    private volatile PeriodicTasks tasks;

    KeyPruneScheduler(KeyPruner pruner, IdempotencyProperties properties) {
        this.pruner = pruner;
        this.properties = properties;
    }

    @Override
    public void start() {
        PeriodicTasks t = PeriodicTasks.onThread("idempotency-pruner");
        if (properties.pruneEnabled()) {
            t.every(properties.pruneInterval(), this::prune,
                    e -> log.warn("idempotency key pruning failed; the next pass retries", e));
        }
        tasks = t;
    }

    private void prune() {
        long deleted = pruner.prune();
        if (deleted > 0) {
            log.debug("pruned {} idempotency keys older than {}", deleted, properties.window());
        }
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t != null) {
            t.stop(Duration.ofSeconds(10));
        }
    }

    /** Stops background database work as soon as the context starts closing. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public boolean isRunning() {
        return tasks != null;
    }
}
