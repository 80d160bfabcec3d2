package com.acme.catalog.platform.db;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code database.start.*}: how long a service waits at start for its database to accept connections before
 * Flyway runs (docs/configuration.md).
 *
 * @param timeout       the longest wait; an unreachable or restarting database past it fails the start with a
 *                      message naming the URL. {@code PT0S}: one attempt, no wait
 * @param retryInterval the pause between two attempts (each attempt logs a line)
 */
@ConfigurationProperties("database.start")
public record DatabaseStartProperties(@DefaultValue("PT3M") Duration timeout,
        @DefaultValue("PT2S") Duration retryInterval) {

    public DatabaseStartProperties {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("database.start.timeout must not be negative");
        }
        if (retryInterval.isNegative() || retryInterval.isZero()) {
            throw new IllegalArgumentException("database.start.retry-interval must be positive");
        }
    }
}
