package com.acme.catalog.fault;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Every client operation of the load with its outcome. A write carries unique markers (an {@code op} attribute of
 * each item change, or a unique release id) so the checker can find exactly what it wrote in the stored wire.
 */
final class History {

    enum Outcome {
        /** 2xx: the write is committed at the positions answered. */
        OK,
        /** a 4xx, or a connection refused before anything was sent: nothing may be committed. */
        FAILED,
        /**
         * every attempt a timeout, a dropped or reset connection or a 5xx until the retry time ran out: committed or
         * not (at most once, thanks to the key), but never half.
         */
        UNKNOWN
    }

    /** One write; {@code markers} are what it puts into the wire, one per change. */
    static final class Op {
        final long id;
        final String catalog;
        final String kind;
        final List<String> markers;
        final long startNanos = System.nanoTime();
        volatile long endNanos;
        volatile Outcome outcome;
        volatile int status;
        volatile String detail;
        /** why it was not OK: the status and problem code, or the exception */
        volatile String reason;
        volatile long firstPosition;
        volatile long lastPosition;
        /** the epoch of the answered positions */
        volatile long epoch;
        /** the items it writes or releases (public reads of them are sampled after a lost tail) */
        final List<String> items = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** the {@code Idempotency-Key} every attempt of this write sends */
        final String key = java.util.UUID.randomUUID().toString();
        /** attempts sent (1 when the first answer was definite) */
        volatile int attempts;
        /** per attempt, its status and problem code or its exception */
        final List<String> attemptLog = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** when the first attempt of unknown outcome ended (0: none), and until when it is retried */
        volatile long firstAmbiguousNanos;
        volatile long retryDeadlineNanos;

        Op(long id, String catalog, String kind, List<String> markers) {
            this.id = id;
            this.catalog = catalog;
            this.kind = kind;
            this.markers = List.copyOf(markers);
        }

        @Override
        public String toString() {
            return "op " + id + " " + kind + " on " + catalog + " " + outcome + " (" + status + " " + detail
                    + ") positions e" + epoch + ":" + firstPosition + ".." + lastPosition + " markers " + markers + " key " + key
                    + " attempts " + attemptLog;
        }
    }

    private final AtomicLong ids = new AtomicLong();
    final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();

    Op begin(String catalog, String kind, java.util.function.LongFunction<List<String>> markers) {
        long id = ids.incrementAndGet();
        Op op = new Op(id, catalog, kind, markers.apply(id));
        ops.add(op);
        return op;
    }

    Map<Outcome, Long> byOutcome() {
        return ops.stream().filter(o -> o.outcome != null)
                .collect(Collectors.groupingBy(o -> o.outcome, () -> new java.util.EnumMap<>(Outcome.class),
                        Collectors.counting()));
    }

    /** FAILED and UNKNOWN operations by outcome and reason. */
    Map<String, Long> notOkByReason() {
        return ops.stream().filter(o -> o.outcome != null && o.outcome != Outcome.OK)
                .collect(Collectors.groupingBy(o -> o.outcome.name().toLowerCase(java.util.Locale.ROOT) + ": "
                        + o.reason, java.util.TreeMap::new, Collectors.counting()));
    }

    /** Counts of the retries with the key, for the summary. */
    Map<String, Object> retries() {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("writesRetried", ops.stream().filter(o -> o.attempts > 1).count());
        out.put("retriesPerWriteMax", ops.stream().mapToInt(o -> Math.max(0, o.attempts - 1)).max().orElse(0));
        out.put("retriesTotal", ops.stream().mapToLong(o -> Math.max(0, o.attempts - 1)).sum());
        out.put("outcomesLearnedByRetry", ops.stream().filter(o -> o.firstAmbiguousNanos != 0
                && o.outcome != null && o.outcome != Outcome.UNKNOWN).count());
        out.put("unknownAtEnd", ops.stream().filter(o -> o.outcome == Outcome.UNKNOWN).count());
        out.put("retriedBecause", ops.stream().flatMap(o -> o.attemptLog.stream().limit(Math.max(0,
                o.attemptLog.size() - 1))).collect(Collectors.groupingBy(s -> s, java.util.TreeMap::new,
                        Collectors.counting())));
        return out;
    }

    long okSince(String catalog, long sinceNanos) {
        return ops.stream().filter(o -> o.catalog.equals(catalog) && o.outcome == Outcome.OK
                && o.endNanos >= sinceNanos).count();
    }
}
