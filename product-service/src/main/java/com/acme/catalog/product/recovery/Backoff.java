package com.acme.catalog.product.recovery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Exponential backoff to a cap for one stream's recovery cycles: after the n-th failure in a row the next attempt
 * waits {@code initial × 2^(n-1)}, at most {@code cap}; a success resets it. Not thread-safe: the worker thread
 * owns it.
 */
final class Backoff {

    private final Duration initial;
    private final Duration cap;
    private final Clock clock;
    private int failures;
    private Instant notBefore = Instant.MIN;

    Backoff(Duration initial, Duration cap, Clock clock) {
        if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= cap, not " + initial + ", " + cap);
        }
        this.initial = initial;
        this.cap = cap;
        this.clock = clock;
    }

    /** @return how long to wait before the next attempt */
    Duration failed() {
        failures++;
        int shift = failures - 1;
        long millis = shift < 62 && initial.toMillis() <= cap.toMillis() >> shift
                ? initial.toMillis() << shift : cap.toMillis();
        Duration wait = Duration.ofMillis(millis);
        notBefore = clock.instant().plus(wait);
        return wait;
    }

    void succeeded() {
        failures = 0;
        notBefore = Instant.MIN;
    }

    int failures() {
        return failures;
    }

    /** @return when the next attempt may run ({@link Instant#MIN} after a success) */
    Instant notBefore() {
        return notBefore;
    }

    /** @return how long until the next attempt may run, zero when it may run now */
    Duration remaining() {
        Instant now = clock.instant();
        return notBefore.isAfter(now) ? Duration.between(now, notBefore) : Duration.ZERO;
    }
}
