package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.RetainedOutboxRepository.Scan;

import org.springframework.stereotype.Component;

/**
 * The {@link Scan} a status read needs (rows above P, first gap, first unpublished row, ripe-through) at a cost
 * proportional to what changed since the previous read of the same (stream, epoch), not to the retained size.
 *
 * <p>It remembers per (stream, epoch) what an earlier read verified and relies on the outbox invariants: positions
 * are written gaplessly in increasing order under the cursor lock; only the pruner deletes, and only a prefix (P
 * advances); the publish watermark ({@code outbox_publish}) only grows and its batches are deleted only at or
 * below P, so a ripe row (published at least min-age ago) stays ripe. Remembered: the gapless prefix (P, C] (its row count is C - P) with the event id of row C, and
 * the ripe-through R. A later read scans only the rows above C for count and gaps, finds the first unpublished
 * row above the watermark with one probe, and finds the first unripe row above max(P, R) with one probe. When P moved outside (P₀, C], row C is no longer the one remembered (restored database), or
 * {@code retention.status.full-scan-interval} has passed since the last full scan, it scans everything above P
 * again, as every read did before; that is what eventually reports a gap punched into the verified prefix from
 * outside.
 *
 * <p>Callers serialize the calls for one stream and take each call's snapshot after the previous call of that
 * stream returned ({@link RetentionStatusReader} holds a per-stream lock around the snapshot transaction), so what
 * is remembered was true in an older snapshot and, by the invariants, still is.
 */
@Component
class RetainedOutboxScanner {

    private final RetainedOutboxRepository outbox;
    private final RetentionProperties properties;
    private final RetentionMetrics metrics;
    private final Clock clock;
    private final Map<Key, Verified> verified = new ConcurrentHashMap<>();

    RetainedOutboxScanner(RetainedOutboxRepository outbox, RetentionProperties properties, RetentionMetrics metrics,
            Clock clock) {
        this.outbox = outbox;
        this.properties = properties;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The scan of (s, epoch) above {@code p} in the caller's snapshot, whose cursor is {@code cursor}. */
    Scan scan(StreamId s, long epoch, long p, long cursor) {
        Key key = new Key(s, epoch);
        Verified v = verified.get(key);
        if (v == null || fullScanDue(v) || p < v.prunedThrough() || p > v.through() || cursor < v.through()
                || (v.through() > p && !Objects.equals(v.throughEventId(),
                        outbox.eventId(s, epoch, v.through()).orElse(null)))) {
            return full(s, epoch, p, true);
        }
        return incremental(key, v, p);
    }

    /** Scans every row above {@code p}; with {@code remember} the result seeds the next incremental reads. */
    Scan full(StreamId s, long epoch, long p, boolean remember) {
        long started = System.nanoTime();
        Instant now = clock.instant();
        Scan scan = outbox.scan(s, epoch, p, Long.MAX_VALUE, properties.minAge());
        if (remember) {
            long through = scan.firstMissing() == null ? p + scan.retained() : scan.firstMissing() - 1;
            verified.put(new Key(s, epoch), new Verified(p, through, eventIdAt(s, epoch, p, through),
                    scan.ripeThrough(), now));
        }
        metrics.statusScanned("full", System.nanoTime() - started, scan.retained());
        return scan;
    }

    private Scan incremental(Key key, Verified v, long p) {
        long started = System.nanoTime();
        StreamId s = key.stream();
        long epoch = key.epoch();
        Duration minAge = properties.minAge();
        long c = v.through();
        Scan tail = outbox.scan(s, epoch, c, Long.MAX_VALUE, minAge);
        long scanned = tail.retained();
        long through = tail.firstMissing() == null ? c + tail.retained() : tail.firstMissing() - 1;
        long r = Math.max(p, v.ripeThrough());
        long ripe;
        if (r >= c) {
            ripe = tail.ripeThrough();
        } else {
            OptionalLong unripe = outbox.firstUnripe(s, epoch, r, through, minAge);
            ripe = unripe.isPresent() ? unripe.getAsLong() - 1 : through;
            scanned += (unripe.isPresent() ? unripe.getAsLong() : through) - r;
        }
        OptionalLong unpublished = outbox.firstUnpublished(s, epoch, p);
        if (unpublished.isPresent()) {
            ripe = Math.min(ripe, unpublished.getAsLong() - 1); // the watermark went back (by hand): not ripe any more
        }
        UUID throughEventId = through == c ? v.throughEventId() : eventIdAt(s, epoch, p, through);
        verified.put(key, new Verified(p, through, throughEventId, ripe, v.fullAt()));
        metrics.statusScanned("incremental", System.nanoTime() - started, scanned);
        return new Scan(p, (c - p) + tail.retained(), tail.firstMissing(),
                unpublished.isPresent() ? unpublished.getAsLong() : null, ripe);
    }

    private boolean fullScanDue(Verified v) {
        Duration interval = properties.status().fullScanInterval();
        return interval.isZero() || !clock.instant().isBefore(v.fullAt().plus(interval));
    }

    private UUID eventIdAt(StreamId s, long epoch, long p, long position) {
        return position > p ? outbox.eventId(s, epoch, position).orElse(null) : null;
    }

    private record Key(StreamId stream, long epoch) {
    }

    /**
     * What reads of one (stream, epoch) have verified.
     *
     * @param prunedThrough  P at the last read; a smaller P later means the remembered rows are not those of
     *                       this database
     * @param through        C: every position in (P, C] is present
     * @param throughEventId the event id of row C (null when C is P), checked before anything remembered is used
     * @param ripeThrough    R: every row in (P, R] is ripe
     * @param fullAt         when the last full scan ran (application clock)
     */
    private record Verified(long prunedThrough, long through, UUID throughEventId, long ripeThrough,
            Instant fullAt) {
    }
}
