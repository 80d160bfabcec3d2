package com.acme.catalog.resolver.epoch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.StartsFrom;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;
import com.acme.catalog.resolver.epoch.EpochRepository.Issue;
import com.acme.catalog.resolver.epoch.RotationRepository.OpenCursor;
import com.acme.catalog.resolver.epoch.RotationRepository.Opened;
import com.acme.catalog.resolver.stream.StreamMetrics;
import com.acme.catalog.resolver.stream.StreamOpening;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one path every epoch rotation takes — a single stream's rotation, a reset, and each batch of a fleet rotation
 * (a batch of one, or of many streams at once) — in the caller's transaction of the resolver's database:
 * <ol>
 *   <li>lock the streams' open cursors (in (tenant, catalog) order) and read their newest epochs;</li>
 *   <li>read their current epochs from the control store, and for a fleet rotation the epochs it already issued
 *       (a crash between the control store's commit and the database's: those are completed, never issued again);
 *       </li>
 *   <li>issue each stream's epoch N+1, one above every epoch the store or the database knows, in one control-store
 *       statement, recording where it starts ({@link StartsFrom}: the locked cursor's epoch, position and chain
 *       digest, or nothing for a reset); a refused statement is retried stream by stream, and a stream the store
 *       still refuses fails with {@code EPOCH_MISMATCH};</li>
 *   <li>for a reset, remove the streams' accepted state; fence the epoch-N cursors, open the epoch-(N+1) cursors at
 *       position 0, digest d0, release epoch N's live leases and drop its delivery claims (one statement each for the
 *       whole batch);</li>
 *   <li>tell the {@link StreamOpening}s (pattern subscribers are registered at position 0 of each new epoch).</li>
 * </ol>
 * The control store commits first: when the database transaction fails after it, the store is one epoch ahead of
 * the database, and the stream refuses writes with {@code HISTORY_ROLLED_BACK} until it is rotated again (a fleet
 * rotation completes its own epochs on resume). {@link #afterCommit} runs after the caller's commit.
 */
@Component
class StreamRotator {

    private final RotationRepository cursors;
    private final EpochRepository epochs;
    private final EpochCache cache;
    private final RollbackDetector detector;
    private final StreamMetrics metrics;
    private final List<StreamOpening> openings;
    private final Counter rotations;
    /** Test seam: runs after the control store issued a batch's epochs, before the database statements. */
    volatile Runnable afterIssue = () -> { };

    StreamRotator(RotationRepository cursors, EpochRepository epochs, EpochCache cache, RollbackDetector detector,
            StreamMetrics metrics, List<StreamOpening> openings, MeterRegistry registry) {
        this.cursors = cursors;
        this.epochs = epochs;
        this.cache = cache;
        this.detector = detector;
        this.metrics = metrics;
        this.openings = List.copyOf(openings);
        // per instance: the epoch of each stream is in GET /v1/epochs; this says when rotations happened
        this.rotations = Counter.builder("resolver.epoch.rotations")
                .description("epoch rotations (single, fleet and resets) this instance completed").register(registry);
    }

    /** What the new epoch starts over: the accepted state as it is (restored), or nothing (a reset). */
    enum Start { RESTORED, EMPTY }

    /**
     * Rotates the streams in the caller's transaction (see the class comment).
     *
     * @param rotationId the fleet rotation doing it; null for a single rotation or reset
     * @param afterLock  runs once the open cursors are locked, before anything is issued (a reset's check that its
     *                   caller's import fence is held); null for nothing
     * @return the streams rotated and those that could not be, each with its code and reason
     */
    Outcome rotate(List<StreamId> streams, Start start, UUID rotationId, String reason, String issuer,
            Runnable afterLock) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a rotation runs in its caller's transaction");
        }
        List<StreamId> sorted = streams.stream().distinct()
                .sorted(Comparator.comparing(StreamId::tenant).thenComparing(StreamId::catalog)).toList();
        Map<StreamId, Failure> failures = new LinkedHashMap<>();
        Map<StreamId, OpenCursor> open = cursors.lockOpen(sorted);
        if (afterLock != null) {
            afterLock.run();
        }
        Map<StreamId, Long> newest = cursors.newestEpochs(sorted);
        if (start == Start.EMPTY) {
            for (StreamId s : cursors.withDecisions(sorted)) {
                failures.put(s, new Failure(s, ProblemCode.STREAM_HAS_DECISIONS, "the accepted revisions of " + s
                        + " are cited by review decisions, which are immutable: its state cannot be reset"));
            }
        }
        Map<StreamId, Current> current = epochs.currentOf(sorted);
        Map<StreamId, Issue> issued = rotationId == null ? Map.of() : epochs.issuedBy(rotationId, sorted);
        Map<StreamId, Issue> chosen = new LinkedHashMap<>();
        List<Issue> toIssue = new ArrayList<>();
        for (StreamId s : sorted) {
            if (failures.containsKey(s)) {
                continue;
            }
            long known = Math.max(current.containsKey(s) ? current.get(s).epoch() : 0L, newest.getOrDefault(s, 0L));
            Issue before = issued.get(s);
            if (before != null) {
                Failure f = completable(s, before, known, open.get(s));
                if (f != null) {
                    failures.put(s, f);
                } else {
                    chosen.put(s, before);
                }
                continue;
            }
            Issue next = new Issue(s, known + 1, startsFrom(start, open.get(s), newest.containsKey(s)));
            chosen.put(s, next);
            toIssue.add(next);
        }
        issue(toIssue, rotationId, reason, issuer, chosen, failures);
        afterIssue.run();
        List<Rotated> rotated = open(chosen, start, open);
        return new Outcome(rotated, List.copyOf(failures.values()));
    }

    /** What only this instance keeps of the rotated streams; after the caller's commit. */
    void afterCommit(Outcome outcome) {
        for (Rotated r : outcome.rotated()) {
            cache.rotated(r.stream(), r.epoch());
            metrics.resetShownPosition(r.stream());
            detector.rotated(r.stream());
        }
        rotations.increment(outcome.rotated().size());
    }

    private void issue(List<Issue> toIssue, UUID rotationId, String reason, String issuer,
            Map<StreamId, Issue> chosen, Map<StreamId, Failure> failures) {
        if (epochs.issueAll(toIssue, reason, issuer, rotationId)) {
            return;
        }
        // refused whole, so nothing was issued; an earlier attempt of this job that timed out may have committed
        Map<StreamId, Issue> late = rotationId == null ? Map.of()
                : epochs.issuedBy(rotationId, toIssue.stream().map(Issue::stream).toList());
        for (Issue i : toIssue) {
            Issue before = late.get(i.stream());
            if (before != null) {
                chosen.put(i.stream(), before);
            } else if (toIssue.size() == 1 || !epochs.issueAll(List.of(i), reason, issuer, rotationId)) {
                chosen.remove(i.stream());
                failures.put(i.stream(), new Failure(i.stream(), ProblemCode.EPOCH_MISMATCH, "another rotation of "
                        + i.stream() + " issued epoch " + i.epoch() + " first; read GET /v1/epochs/"
                        + i.stream().tenant() + "/" + i.stream().catalog()));
            }
        }
    }

    private List<Rotated> open(Map<StreamId, Issue> chosen, Start start, Map<StreamId, OpenCursor> open) {
        List<Opened> opened = chosen.values().stream().map(i -> new Opened(i.stream(), i.epoch())).toList();
        if (start == Start.EMPTY) {
            cursors.removeState(chosen.keySet());
        }
        cursors.fenceAndOpen(opened);
        Map<StreamId, Long> byStream = new HashMap<>();
        opened.forEach(o -> byStream.put(o.stream(), o.epoch()));
        openings.forEach(o -> o.openedAll(byStream));
        List<Rotated> rotated = new ArrayList<>();
        for (Issue i : chosen.values()) {
            OpenCursor was = open.get(i.stream());
            rotated.add(new Rotated(i.stream(), i.epoch(), i.startsFrom(), was == null ? null : was.epoch(),
                    was == null ? null : was.position()));
        }
        return rotated;
    }

    /**
     * An epoch this fleet rotation issued before (its database transaction did not commit) may be opened now only
     * if it is still the newest epoch anyone knows and the cursor it starts from has not moved since.
     */
    private static Failure completable(StreamId s, Issue before, long known, OpenCursor open) {
        if (known > before.epoch()) {
            return new Failure(s, ProblemCode.EPOCH_MISMATCH, "epoch " + before.epoch() + " this rotation issued "
                    + "for " + s + " is no longer its newest (epoch " + known + " exists); rotate it by hand");
        }
        StartsFrom from = before.startsFrom();
        if (open != null && from != null && !from.empty() && (from.epoch() != open.epoch()
                || from.position() != open.position() || !from.chainDigest().equals(open.chainDigest()))) {
            return new Failure(s, ProblemCode.EPOCH_MISMATCH, "the cursor of " + s + " moved after this rotation "
                    + "issued epoch " + before.epoch() + " (from epoch " + from.epoch() + " position "
                    + from.position() + " to epoch " + open.epoch() + " position " + open.position()
                    + "); rotate it by hand");
        }
        return null;
    }

    private static StartsFrom startsFrom(Start start, OpenCursor open, boolean anyCursor) {
        if (start == Start.EMPTY || (open == null && !anyCursor)) {
            return StartsFrom.nothing();
        }
        return open == null ? null : new StartsFrom(open.epoch(), open.position(), open.chainDigest(), false);
    }

    /** A stream rotated: its new epoch, where it starts (null where unknown), and the cursor it fenced (if any). */
    record Rotated(StreamId stream, long epoch, StartsFrom startsFrom, Long fencedEpoch, Long fencedPosition) {
    }

    /** A stream not rotated, with the code a single rotation answers and the reason. */
    record Failure(StreamId stream, ProblemCode code, String message) {
    }

    /** A batch's result. */
    record Outcome(List<Rotated> rotated, List<Failure> failures) {

        /** @return the streams rotated, as a set */
        Set<StreamId> rotatedStreams() {
            return Set.copyOf(rotated.stream().map(Rotated::stream).toList());
        }
    }
}
