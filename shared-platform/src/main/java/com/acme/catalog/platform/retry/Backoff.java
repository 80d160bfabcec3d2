package com.acme.catalog.platform.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * {@link BackoffPolicy} with its count of failures in memory, for one retried job (one stream's recovery cycles):
 * after the n-th failure in a row the next attempt waits {@code initial × 2^(n-1)}, at most {@code cap}; a success
 * resets it. Not thread-safe: the thread running the job owns it.
 */
public final class Backoff {

    private final BackoffPolicy policy;
    private final Clock clock;
    private int failures;
    private Instant notBefore = Instant.MIN;

    /** @throws IllegalArgumentException unless 0 &lt; initial &le; cap */
    public Backoff(Duration initial, Duration cap, Clock clock) {
        this.policy = new BackoffPolicy(initial, cap);
        this.clock = clock;
    }

    /** @return how long to wait before the next attempt */
    public Duration failed() {
        failures++;
        Duration wait = policy.pause(failures);
        notBefore = clock.instant().plus(wait);
        return wait;
    }

    public void succeeded() {
        failures = 0;
        notBefore = Instant.MIN;
    }

    public int failures() {
        return failures;
    }

    /** @return when the next attempt may run ({@link Instant#MIN} after a success) */
    public Instant notBefore() {
        return notBefore;
    }

    /** @return how long until the next attempt may run, zero when it may run now */
    public Duration remaining() {
        Instant now = clock.instant();
        return notBefore.isAfter(now) ? Duration.between(now, notBefore) : Duration.ZERO;
    }
}
