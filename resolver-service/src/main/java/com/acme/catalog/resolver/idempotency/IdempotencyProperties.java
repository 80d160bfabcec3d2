package com.acme.catalog.resolver.idempotency;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code resolver.idempotency.*}: how long idempotency keys are kept and how they are pruned (docs/writes.md).
 *
 * @param window        a key is kept at least this long after its write committed (database time); a retry within
 *                      it answers the original result
 * @param pruneEnabled  whether the pruner runs; off, keys are kept for ever
 * @param pruneInterval pause between two prune passes
 * @param batchSize     keys deleted per statement (each batch its own short transaction)
 */
@ConfigurationProperties("resolver.idempotency")
public record IdempotencyProperties(@DefaultValue("PT24H") Duration window,
        @DefaultValue("true") boolean pruneEnabled, @DefaultValue("PT5M") Duration pruneInterval,
        @DefaultValue("1000") int batchSize) {

    public IdempotencyProperties {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("resolver.idempotency.window must be positive, got " + window);
        }
        if (pruneInterval == null || pruneInterval.isNegative() || pruneInterval.isZero()) {
            throw new IllegalArgumentException("resolver.idempotency.prune-interval must be positive, got "
                    + pruneInterval);
        }
        if (batchSize < 1 || batchSize > 100_000) {
            throw new IllegalArgumentException("resolver.idempotency.batch-size must be 1..100000, got " + batchSize);
        }
    }
}
