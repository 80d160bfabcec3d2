package com.acme.catalog.resolver.epoch;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;
import com.acme.catalog.resolver.epoch.RollbackRepository.OpenCursor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Finds resolver databases that were rolled back (restored) without an epoch rotation, and records it on the open
 * cursor row, where every write and the relay see it ({@code rolled_back_at}) until an operator rotates the epoch:
 * <ol>
 *   <li>at start and every {@code control.rollback-check-interval}: a cursor behind the control store's high-water
 *       mark of its epoch, or in an older epoch than the store's current one ({@link #check});</li>
 *   <li>a consumer reporting progress ahead of the cursor in the same epoch ({@link #consumerAhead}): the mark is
 *       recorded asynchronously and may lag, so a restore just after the last recorded mark is caught this way.</li>
 * </ol>
 * {@code resolver_history_rolled_back} is 1 per stream while it is refused for a rollback, and absent otherwise (a
 * series per quiet stream would cost every stream a series for a rare incident; docs/metrics.md): the gauge is
 * registered when a check or a consumer's report finds the stream refused and removed when it no longer is.
 * {@code resolver_rollbacks_detected_total{signal}} counts, per instance, the streams this instance marked rolled
 * back, by the signal that found it ({@code high_water_mark}, {@code older_epoch}, {@code consumer_ahead}): the
 * per-stream gauge says which streams are refused now, the counter when a detection happened (a dashboard shows
 * it as an event; registered at 0 at start).
 *
 * <p>The check reads the control store before the database: every recorded mark was committed in the database
 * when it was recorded and a cursor never moves back on its own, so a cursor read afterwards that is below it can
 * only be a rollback, never a write that raced the check.
 */
@Component
public class RollbackDetector {

    private static final Logger log = LoggerFactory.getLogger(RollbackDetector.class);

    private final EpochRepository epochs;
    private final RollbackRepository cursors;
    private final HighWaterMarks marks;
    private final MeterRegistry registry;
    private final Map<StreamId, Gauge> refusing = new ConcurrentHashMap<>();
    private final Counter byHighWaterMark;
    private final Counter byOlderEpoch;
    private final Counter byConsumerAhead;

    RollbackDetector(EpochRepository epochs, RollbackRepository cursors, HighWaterMarks marks,
            MeterRegistry registry) {
        this.epochs = epochs;
        this.cursors = cursors;
        this.marks = marks;
        this.registry = registry;
        this.byHighWaterMark = detected(registry, "high_water_mark");
        this.byOlderEpoch = detected(registry, "older_epoch");
        this.byConsumerAhead = detected(registry, "consumer_ahead");
    }

    private static Counter detected(MeterRegistry registry, String signal) {
        return Counter.builder("resolver.rollbacks.detected")
                .description("streams this instance marked rolled back (refused until their epoch is rotated), by "
                        + "the signal that found it")
                .tag("signal", signal).register(registry);
    }

    /**
     * Compares every open cursor with the control store, marks the rolled back ones, gives streams the store does
     * not know their first epoch (the database's), and records marks the store is behind on.
     *
     * @return how many cursors this check marked
     * @throws RuntimeException when the control store or the database cannot be read (nothing is marked then)
     */
    int check() {
        Map<StreamId, Current> control = epochs.currentAll();
        int marked = 0;
        Set<StreamId> open = new HashSet<>();
        for (OpenCursor c : cursors.openCursors()) {
            open.add(c.stream());
            Current k = control.get(c.stream());
            if (k == null) {
                // a stream of an upgraded database, or one whose first epoch was never recorded: the database's
                epochs.issueFirst(c.stream(), c.epoch(), EpochCache.INITIAL_REASON, EpochCache.RESOLVER_ISSUER);
                marks.committed(c.stream(), c.epoch(), c.position());
                show(c.stream(), c.rolledBack());
                continue;
            }
            String reason = reason(c, k);
            boolean rolledBack = c.rolledBack();
            if (reason != null && !rolledBack) {
                long below = c.epoch() < k.epoch() ? Long.MAX_VALUE : k.highWaterMark();
                if (cursors.mark(c.stream(), c.epoch(), below, reason)) {
                    marked++;
                    (c.epoch() < k.epoch() ? byOlderEpoch : byHighWaterMark).increment();
                    log.error("{}: history rolled back: {}; writes and the relay refuse it until its epoch is "
                            + "rotated (docs/epochs.md)", c.stream(), reason);
                }
                rolledBack = cursors.marked(c.stream(), c.epoch());
            }
            if (c.epoch() > k.epoch()) {
                log.error("{}: the database's cursor is in epoch {}, ahead of the control store's current epoch {}: "
                        + "the control store lost history (it must never be restored or replaced); writes and the "
                        + "relay refuse the stream (STREAM_FENCED) until an operator rotates it", c.stream(),
                        c.epoch(), k.epoch());
            }
            if (!rolledBack && c.epoch() == k.epoch() && c.position() > k.highWaterMark()) {
                marks.committed(c.stream(), c.epoch(), c.position()); // a commit path that did not tell us
            }
            show(c.stream(), rolledBack);
        }
        for (Current k : control.values()) {
            if (!open.contains(k.stream())) {
                // the store saw commits of a stream the database has no open cursor of: its history is gone
                show(k.stream(), k.highWaterMark() > 0);
            }
        }
        return marked;
    }

    /**
     * A consumer of (stream, epoch) reports {@code position}, ahead of the cursor: unless the cursor moved past it
     * meanwhile, the stream is marked rolled back.
     *
     * @return whether the stream is marked rolled back now
     */
    public boolean consumerAhead(StreamId s, long epoch, long position, String consumerId) {
        String reason = "consumer %s reported progress %d in epoch %d, ahead of the resolver's cursor"
                .formatted(consumerId, position, epoch);
        if (cursors.mark(s, epoch, position, reason)) {
            byConsumerAhead.increment();
            log.error("{}: history rolled back: {}; writes and the relay refuse it until its epoch is rotated "
                    + "(docs/epochs.md)", s, reason);
        }
        boolean rolledBack = cursors.marked(s, epoch);
        if (rolledBack) {
            show(s, true);
        }
        return rolledBack;
    }

    /** A rotation opened a new epoch for the stream: it is no longer refused. */
    void rotated(StreamId s) {
        show(s, false);
    }

    private static String reason(OpenCursor c, Current k) {
        if (c.epoch() < k.epoch()) {
            return "the database's cursor is in epoch %d, the control store issued epoch %d (a restore from before it)"
                    .formatted(c.epoch(), k.epoch());
        }
        if (c.epoch() == k.epoch() && c.position() < k.highWaterMark()) {
            return "cursor %d of epoch %d is behind the control store's high-water mark %d"
                    .formatted(c.position(), c.epoch(), k.highWaterMark());
        }
        return null;
    }

    private synchronized void show(StreamId s, boolean rolledBack) {
        if (rolledBack) {
            refusing.computeIfAbsent(s, this::register);
        } else {
            Gauge gone = refusing.remove(s);
            if (gone != null) {
                registry.remove(gone);
            }
        }
    }

    private Gauge register(StreamId s) {
        return Gauge.builder("resolver.history.rolled.back", () -> 1)
                .description("1 while writes and the relay refuse the stream because its history was rolled back; "
                        + "absent otherwise")
                .tags("tenant", s.tenant(), "catalog", s.catalog())
                .register(registry);
    }
}
