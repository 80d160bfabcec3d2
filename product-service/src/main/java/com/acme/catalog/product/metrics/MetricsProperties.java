package com.acme.catalog.product.metrics;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.boot.convert.DurationUnit;

/**
 * {@code product.metrics.*}: registering the per-stream counters of every known stream ({@link KnownStreamCounters};
 * docs/configuration.md lists the keys).
 *
 * @param knownStreamsInitial how long after start the known streams' counters are first registered
 * @param knownStreams        how often they are registered again (a stream bootstrapped or rebuilt later gets
 *                            them then)
 */
@ConfigurationProperties("product.metrics")
record MetricsProperties(
        @Name("known-streams-initial-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("500")
        Duration knownStreamsInitial,
        @Name("known-streams-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("10000") Duration knownStreams) {

    MetricsProperties {
        if (knownStreamsInitial.isNegative()) {
            throw new IllegalArgumentException("product.metrics.known-streams-initial-ms must not be negative, not "
                    + knownStreamsInitial.toMillis());
        }
        if (knownStreams.isNegative() || knownStreams.isZero()) {
            throw new IllegalArgumentException("product.metrics.known-streams-ms must be positive, not "
                    + knownStreams.toMillis());
        }
    }
}
