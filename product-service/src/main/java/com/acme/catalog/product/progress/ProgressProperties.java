package com.acme.catalog.product.progress;

import java.time.Duration;

import com.acme.catalog.platform.retry.BackoffPolicy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.progress.*}: reporting durable progress to the resolver (docs/product-projections.md "Progress";
 * docs/configuration.md lists the keys). Public for the inbox's periodic resync of the serving cursors.
 *
 * @param initialBackoff first retry delay after a failed report, doubled per failure in a row
 * @param maxBackoff     retry delay cap
 * @param minInterval    per stream, reports are at least this far apart (offers in between coalesce); zero: no floor
 * @param resyncInterval how often every serving cursor is re-read, its gauges refreshed and its position offered
 */
@ConfigurationProperties("product.progress")
public record ProgressProperties(
        @DefaultValue("PT0.2S") Duration initialBackoff, @DefaultValue("PT30S") Duration maxBackoff,
        @DefaultValue("PT0.2S") Duration minInterval, @DefaultValue("PT1M") Duration resyncInterval) {

    public ProgressProperties {
        if (initialBackoff.toMillis() < 1 || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("product.progress needs 1ms <= initial-backoff <= max-backoff, not "
                    + initialBackoff + " and " + maxBackoff);
        }
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("product.progress.min-interval must not be negative, not "
                    + minInterval);
        }
        if (resyncInterval.isNegative() || resyncInterval.isZero()) {
            throw new IllegalArgumentException("product.progress.resync-interval must be positive, not "
                    + resyncInterval);
        }
    }

    /** The retry pause after failed reports: {@code initialBackoff} doubling to {@code maxBackoff}. */
    public BackoffPolicy backoff() {
        return new BackoffPolicy(initialBackoff, maxBackoff);
    }
}
