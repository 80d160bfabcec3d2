package com.acme.catalog.fault;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One failover of the resolver's database the suite made ({@link Faults.Kind#FAILOVER_SYNC},
 * {@link Faults.Kind#FAILOVER_ASYNC_LOST_TAIL}): when it happened, what it lost, and what the services and readers
 * did after it. Times are {@link System#nanoTime}; 0 means "did not happen".
 */
final class Failover {

    final Faults.Kind kind;
    final long startNanos = System.nanoTime();
    volatile long killedNanos;
    volatile long promotedNanos;
    /** per stream whose open epoch lost its tail: the epoch and the last position the new primary has */
    final List<Checker.LostTail> lostTails = new CopyOnWriteArrayList<>();
    /** per stream, when the resolver marked it rolled back ({@code rolledBackAt} of its listing) */
    final Map<String, Long> detectedNanos = new ConcurrentHashMap<>();
    volatile long rotatedNanos;
    volatile long convergedNanos;
    /** whether the product had applied past the standby's cursor of some stream before the primary was killed */
    volatile boolean productAheadOfStandby;
    final AtomicInteger publicReads = new AtomicInteger();
    /** public reads that answered an item as a lost-tail write left it: per stream, the last one's time */
    final Map<String, Long> lastLostServedNanos = new ConcurrentHashMap<>();
    final AtomicInteger lostServed = new AtomicInteger();
    final List<String> lateServes = new CopyOnWriteArrayList<>();
    /** statuses of the sampled public reads of lost-tail items */
    final Map<String, Integer> readStatuses = new ConcurrentHashMap<>();
    final List<String> notes = new CopyOnWriteArrayList<>();
    volatile Thread watcher;

    Failover(Faults.Kind kind) {
        this.kind = kind;
    }

    /** How long after the promotion (ms), or -1. */
    long sincePromotion(long nanos) {
        return nanos == 0 || promotedNanos == 0 ? -1 : (nanos - promotedNanos) / 1_000_000;
    }

    /** The first write acknowledged after the promotion (any stream), from the history. */
    long firstWriteAfterPromotionMs(History history) {
        return history.ops.stream().filter(o -> o.outcome == History.Outcome.OK && o.endNanos > promotedNanos)
                .mapToLong(o -> o.endNanos).min().stream().map(this::sincePromotion).findFirst().orElse(-1);
    }

    /** The summary's entry: times in ms after the promotion, what was lost (from the checker's listing). */
    Map<String, Object> summary(History history, List<Checker.LostWrite> lost) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("kind", kind.name());
        out.put("promotedMsAfterKill", killedNanos == 0 || promotedNanos == 0 ? -1
                : (promotedNanos - killedNanos) / 1_000_000);
        out.put("firstWriteMsAfterPromotion", firstWriteAfterPromotionMs(history));
        Map<String, Object> lostBy = new LinkedHashMap<>();
        for (Checker.LostTail t : lostTails) {
            List<Checker.LostWrite> mine = lost.stream().filter(w -> w.tail().equals(t)).toList();
            long through = mine.stream().mapToLong(w -> w.op().lastPosition).max().orElse(t.survived());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("epoch", t.epoch());
            m.put("survivedThrough", t.survived());
            m.put("lostPositions", through > t.survived() ? (t.survived() + 1) + ".." + through : "none");
            m.put("lostWrites", mine.size());
            m.put("detectionMsAfterPromotion", sincePromotion(detectedNanos.getOrDefault(t.catalog(), 0L)));
            m.put("lastLostTailServedMsAfterDetection", detectedNanos.containsKey(t.catalog())
                    && lastLostServedNanos.containsKey(t.catalog())
                    ? (lastLostServedNanos.get(t.catalog()) - detectedNanos.get(t.catalog())) / 1_000_000 : null);
            lostBy.put(t.catalog(), m);
        }
        out.put("streamsLost", lostBy);
        out.put("rotationMsAfterPromotion", sincePromotion(rotatedNanos));
        out.put("convergenceMsAfterPromotion", sincePromotion(convergedNanos));
        if (kind == Faults.Kind.FAILOVER_ASYNC_LOST_TAIL) {
            out.put("productAheadOfStandby", productAheadOfStandby);
            out.put("lostTailReads", Map.of("sampled", publicReads.get(), "servedLostTail", lostServed.get(),
                    "statuses", new java.util.TreeMap<>(readStatuses)));
        }
        List<String> all = new ArrayList<>(notes);
        if (!all.isEmpty()) {
            out.put("notes", all);
        }
        return out;
    }
}
