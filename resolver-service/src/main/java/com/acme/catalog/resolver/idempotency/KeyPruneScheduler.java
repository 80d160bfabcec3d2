package com.acme.catalog.resolver.idempotency;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Runs the {@link KeyPruner} every {@code resolver.idempotency.prune-interval} (off with
 * {@code resolver.idempotency.prune-enabled=false}) on a thread of its own.
 */
@Component
class KeyPruneScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(KeyPruneScheduler.class);

    private final KeyPruner pruner;
    private final IdempotencyProperties properties;

    KeyPruneScheduler(KeyPruner pruner, IdempotencyProperties properties) {
        super("idempotency-pruner", 1);
        this.pruner = pruner;
        this.properties = properties;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        if (properties.pruneEnabled()) {
            tasks.every(properties.pruneInterval(), this::prune,
                    e -> log.warn("idempotency key pruning failed; the next pass retries", e));
        }
    }

    private void prune() {
        long deleted = pruner.prune();
        if (deleted > 0) {
            log.debug("pruned {} idempotency keys older than {}", deleted, properties.window());
        }
    }
}
