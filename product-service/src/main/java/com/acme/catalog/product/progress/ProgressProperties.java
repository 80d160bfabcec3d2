package com.acme.catalog.product.progress;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import com.acme.catalog.contracts.retry.BackoffPolicy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.boot.convert.DurationUnit;

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
        @Name("initial-backoff-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("200") Duration initialBackoff,
        @Name("max-backoff-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("30000") Duration maxBackoff,
        @Name("min-interval-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("200") Duration minInterval,
        @Name("resync-interval-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("60000") Duration resyncInterval) {

    public ProgressProperties {
        if (initialBackoff.toMillis() < 1 || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("product.progress needs 1 <= initial-backoff-ms <= max-backoff-ms, not "
                    + initialBackoff.toMillis() + " and " + maxBackoff.toMillis());
        }
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("product.progress.min-interval-ms must not be negative, not "
                    + minInterval.toMillis());
        }
        if (resyncInterval.isNegative() || resyncInterval.isZero()) {
            throw new IllegalArgumentException("product.progress.resync-interval-ms must be positive, not "
                    + resyncInterval.toMillis());
        }
    }

    /** The retry pause after failed reports: {@code initialBackoff} doubling to {@code maxBackoff}. */
    public BackoffPolicy backoff() {
        return new BackoffPolicy(initialBackoff, maxBackoff);
    }
}
