package com.acme.catalog.platform.retry;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff to a cap, without state: the pause after the n-th failure in a row is
 * {@code initial × 2^(n-1)}, at most {@code cap}. For callers that keep the count of failures themselves (the
 * relay keeps it in the delivery row); {@link Backoff} keeps it in memory.
 *
 * @param initial the pause after the first failure, &gt; 0
 * @param cap     the longest pause, &ge; {@code initial}
 */
public record BackoffPolicy(Duration initial, Duration cap) {

    public BackoffPolicy {
        if (initial == null || cap == null || initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= cap, not " + initial + ", " + cap);
        }
    }

    /**
     * @param failures failures in a row, &ge; 1
     * @return the pause before the next attempt, whole milliseconds, never more than {@code cap}
     */
    public Duration pause(int failures) {
        int shift = Math.max(0, failures - 1);
        long initialMs = initial.toMillis();
        long capMs = cap.toMillis();
        long millis = shift < 62 && initialMs <= capMs >> shift ? initialMs << shift : capMs;
        return Duration.ofMillis(millis);
    }

    /**
     * {@link #pause} with full jitter in its upper half, so callers failing together do not retry together.
     *
     * @return a pause uniformly in [pause / 2, pause), in nanoseconds
     */
    public Duration jitteredPause(int failures, RandomGenerator random) {
        double nanos = pause(failures).toNanos();
        return Duration.ofNanos((long) (nanos / 2 + random.nextDouble() * nanos / 2));
    }
}
