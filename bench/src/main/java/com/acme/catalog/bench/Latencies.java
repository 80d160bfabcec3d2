package com.acme.catalog.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Collected latencies of one run, summarised as throughput and percentiles. */
final class Latencies {

    private long[] nanos = new long[1024];
    private int count;

    synchronized void add(long n) {
        if (count == nanos.length) {
            nanos = Arrays.copyOf(nanos, count * 2);
        }
        nanos[count++] = n;
    }

    synchronized Map<String, Object> summary(long wallNanos) {
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operations", count);
        m.put("perSecond", round(count / (wallNanos / 1e9)));
        m.put("p50Ms", round(percentile(sorted, 0.50) / 1e6));
        m.put("p99Ms", round(percentile(sorted, 0.99) / 1e6));
        m.put("maxMs", round((count == 0 ? 0 : sorted[count - 1]) / 1e6));
        return m;
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
