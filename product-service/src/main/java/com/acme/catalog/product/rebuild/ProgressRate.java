package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * A count that grows (rows copied, events applied) and its rate over a recent window, for a rebuild's progress
 * (docs/rebuild.md "Progress"). {@link #add} is called per COPY chunk or catch-up page, never per row: it adds to
 * the count and, at most once per {@code spacing}, keeps a sample (time, count). The rate is the count's growth since
 * the oldest sample of the window (the newest one at least {@code window} old, else the first) up to now, so a
 * stalled count shows a falling rate. Pure: the clock is {@code nanoTime}, injected.
 */
final class ProgressRate {

    /** How far back the rate looks. */
    static final Duration WINDOW = Duration.ofSeconds(10);
    /** At most one sample per second: per-chunk calls cost a comparison. */
    static final Duration SPACING = Duration.ofSeconds(1);

    private final LongSupplier nanoTime;
    private final long windowNanos;
    private final long spacingNanos;
    /** Guarded by this: samples {time, count}, oldest first. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private volatile long count;
    private volatile long lastSampleNanos;

    ProgressRate(LongSupplier nanoTime, Duration window, Duration spacing) {
        this.nanoTime = nanoTime;
        this.windowNanos = window.toNanos();
        this.spacingNanos = spacing.toNanos();
        long now = nanoTime.getAsLong();
        samples.add(new long[] {now, 0});
        lastSampleNanos = now;
    }

    ProgressRate(LongSupplier nanoTime) {
        this(nanoTime, WINDOW, SPACING);
    }

    /** {@code n} more were done; @return the count now. */
    long add(long n) {
        long c;
        synchronized (this) {
            c = count + n;
            count = c;
            long now = nanoTime.getAsLong();
            if (now - lastSampleNanos >= spacingNanos) {
                sample(now, c);
            }
        }
        return c;
    }

    long count() {
        return count;
    }

    /** @return count per second over the window up to now; null before any time passed */
    synchronized Double perSecond() {
        long now = nanoTime.getAsLong();
        long[] from = samples.peekFirst();
        return rate(from[1], from[0], count, now);
    }

    private void sample(long now, long c) {
        samples.addLast(new long[] {now, c});
        lastSampleNanos = now;
        // keep one sample at least a window old as the anchor, drop the older ones
        while (samples.size() > 1) {
            java.util.Iterator<long[]> it = samples.iterator();
            it.next();
            long[] second = it.next();
            if (now - second[0] >= windowNanos) {
                samples.removeFirst();
            } else {
                break;
            }
        }
    }

    /** @return the growth from {@code countThen} to {@code countNow} per second; null when no time passed */
    static Double rate(long countThen, long nanosThen, long countNow, long nanosNow) {
        long nanos = nanosNow - nanosThen;
        if (nanos <= 0) {
            return null;
        }
        return Math.max(0, countNow - countThen) * 1e9 / nanos;
    }

    /**
     * @return the time left to reach {@code total} from {@code done} at {@code perSecond} (whole seconds, rounded
     *         up): zero once done reaches total; null when the total or the rate is unknown or the rate is zero
     */
    static Duration eta(long done, Long total, Double perSecond) {
        if (total == null) {
            return null;
        }
        if (done >= total) {
            return Duration.ZERO;
        }
        if (perSecond == null || !(perSecond > 0) || Double.isInfinite(perSecond)) {
            return null;
        }
        return Duration.ofSeconds((long) Math.ceil((total - done) / perSecond));
    }
}
