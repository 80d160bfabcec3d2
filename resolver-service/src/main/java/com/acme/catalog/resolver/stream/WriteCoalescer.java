package com.acme.catalog.resolver.stream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;

/**
 * Group commit per stream (docs/design.md step 1): while one physical transaction of a stream is in flight, writes of
 * that stream that arrive queue up; when it ends, the oldest queued write's own thread becomes the leader, takes
 * the queue (within the bounds) and commits it as one physical transaction in which every write stays its own
 * logical transaction (own transaction id, own positions, own result). A quiet stream's write starts at once; on a
 * busy stream the leader may first wait, at most {@code max-wait}, for companions ({@link #linger}). Each thread
 * commits at most one physical transaction, the one holding its own write.
 *
 * <p>Failures stay with their write. A write whose own changes fail ({@link LogicalTransactionFailure}) is taken
 * out, its caller gets exactly the error it would have got alone, and the rest are retried without it in a new
 * physical transaction (the failed one rolled back whole, so nothing of it is written). A failure no write caused
 * (a statement or lock error) sends each write of the group through its own physical transaction, unless it is a
 * refusal of the stream itself (503 from the {@link WriteGate}), which every write of the group gets. A failed commit
 * is not retried: its outcome is unknown, as it would be for a single write, and every caller of it gets the error
 * (503 {@code OUTCOME_UNKNOWN}).
 *
 * <p>Idempotency keys travel with their writes ({@link LogicalWrite}) and are looked up by the physical transaction
 * under the cursor lock ({@link ChunkWriter#appendAttributed}): a retry of a committed key answers the stored result,
 * two writes of one key in a group apply once, a key reused for another request fails that write alone. So a keyed
 * write gets the same answer coalesced or not.
 *
 * <p>Coalescing is per process; writes from other instances are still serialized by the cursor row lock.
 */
final class WriteCoalescer {

    /** The longest gap between two writes that the rate estimate counts (longer ones count as this). */
    private static final long MAX_GAP_NANOS = 1_000_000_000L;
    /** A leader stops waiting once no write has arrived for this many average gaps. */
    private static final long SILENCE_GAPS = 2;

    private final PhysicalWrite physical;
    private final CoalescingProperties bounds;
    private final StreamMetrics metrics;
    private final ConcurrentHashMap<StreamId, Lane> lanes = new ConcurrentHashMap<>();

    WriteCoalescer(PhysicalWrite physical, CoalescingProperties bounds, StreamMetrics metrics) {
        this.physical = physical;
        this.bounds = bounds;
        this.metrics = metrics;
    }

    /**
     * Commits one logical transaction, possibly together with concurrent writes of the same stream.
     *
     * @param bytes the request's size as sent (0 when unknown), counted against the byte bound
     * @return its own result; never null
     * @throws RuntimeException exactly what the write would have thrown in its own physical transaction
     */
    WriteResult write(StreamId stream, List<Change> changes, long bytes) {
        return write(stream, LogicalWrite.unkeyed(changes), bytes);
    }

    /**
     * {@link #write(StreamId, List, long)} for a write that may carry an idempotency key: the physical transaction
     * looks the group's keys up under the cursor lock, so a keyed write gets the same answer coalesced or alone.
     */
    WriteResult write(StreamId stream, LogicalWrite write, long bytes) {
        Lane lane = lanes.computeIfAbsent(stream, Lane::new);
        Member me = new Member(write, Math.max(0, bytes));
        boolean lead;
        synchronized (lane) {
            lane.arrived(me.enqueued);
            lane.queue.add(me);
            lead = !lane.busy;
            lane.busy = true;
            if (!lead && lane.lingering) {
                lane.notifyAll();
            }
        }
        if (!lead) {
            me.awaitTurn();
        }
        if (!me.isDone()) {
            lead(lane);
        }
        return me.outcome();
    }

    /** Writes queued for the stream right now, the leader's group excluded (for tests and diagnostics). */
    int queued(StreamId stream) {
        Lane lane = lanes.get(stream);
        if (lane == null) {
            return 0;
        }
        synchronized (lane) {
            return lane.queue.size();
        }
    }

    /**
     * Writes of the stream inside the coalescer right now: queued, or in the physical transaction being committed
     * (for tests that must know every write they sent has arrived, whichever group took it).
     */
    int pending(StreamId stream) {
        Lane lane = lanes.get(stream);
        if (lane == null) {
            return 0;
        }
        synchronized (lane) {
            return lane.queue.size() + lane.inFlight;
        }
    }

    /** Commits the group at the head of the lane (which holds the caller's own write), then hands over. */
    private void lead(Lane lane) {
        List<Member> group = new ArrayList<>();
        boolean interrupted;
        synchronized (lane) {
            interrupted = linger(lane);
            int events = 0;
            long bytes = 0;
            while (!lane.queue.isEmpty()) {
                Member next = lane.queue.peek();
                boolean fits = group.size() < bounds.maxTransactions()
                        && events + next.changes.size() <= bounds.maxEvents()
                        && bytes + next.bytes <= bounds.maxBytes();
                if (!group.isEmpty() && !fits) {
                    break;
                }
                group.add(lane.queue.poll());
                events += next.changes.size();
                bytes += next.bytes;
            }
            lane.lastGroupSize = group.size();
            lane.inFlight = group.size();
        }
        long now = System.nanoTime();
        for (Member m : group) {
            metrics.queued(lane.stream, now - m.enqueued);
        }
        try {
            commit(lane.stream, group);
        } finally {
            Member next;
            synchronized (lane) {
                lane.inFlight = 0;
                next = lane.queue.peek();
                lane.busy = next != null;
            }
            if (next != null) {
                next.promote();
            }
            if (interrupted) {
                Thread.currentThread().interrupt(); // restored only now: the group's commit must not see it
            }
        }
    }

    /**
     * With {@code max-wait} set and the stream {@linkplain #busy busy}, waits (holding no lock: {@code wait} releases
     * the lane) until more writes of the stream have queued than one physical transaction takes, or until
     * {@code max-wait} has passed, or until no write has arrived for twice the stream's average gap (its clients
     * have stopped coming: a closed-loop client already queued cannot send its next write before this group
     * commits), whichever comes first. Fewer, larger physical transactions cost the database less per write (one
     * lock, one statement, one commit each); the price is up to {@code max-wait} more latency for a write that finds
     * nobody to share with.
     * A quiet stream's write never waits: nobody is likely to come to share it. An interrupt ends the wait (what is
     * queued is committed as usual).
     *
     * @return whether the thread was interrupted while waiting (the caller restores the flag after the commit)
     */
    private boolean linger(Lane lane) {
        long waitNanos = bounds.maxWait().toNanos();
        if (waitNanos <= 0 || !busy(lane)) {
            return false;
        }
        long started = System.nanoTime();
        long deadline = started + waitNanos;
        lane.lingering = true;
        try {
            while (!full(lane)) {
                long now = System.nanoTime();
                // arrivals have stopped (all the stream's clients may be queued already): waiting longer gains nothing
                long silentUntil = lane.lastArrival + SILENCE_GAPS * lane.meanGapNanos;
                long left = Math.min(deadline, silentUntil) - now;
                if (left <= 0) {
                    return false;
                }
                lane.wait(Math.max(1, left / 1_000_000L));
            }
            return false;
        } catch (InterruptedException e) {
            return true;
        } finally {
            lane.lingering = false;
            metrics.waited(lane.stream, System.nanoTime() - started);
        }
    }

    /**
     * Whether a leader of this stream can expect companions within {@code max-wait} (caller holds the lane): the
     * stream's recent rate is at least {@code wait-above-rate}, and writes overlap (its last physical transaction
     * carried several, or several are queued now). A lone client writing one write after another never overlaps
     * itself, so it never waits, however fast it writes. {@code wait-above-rate} 0 always waits.
     */
    private boolean busy(Lane lane) {
        if (bounds.waitAboveRate() == 0) {
            return true;
        }
        return lane.ratePerSecond() >= bounds.waitAboveRate() && (lane.lastGroupSize > 1 || lane.queue.size() > 1);
    }

    /** Whether the lane's queue already holds at least one physical transaction's worth (caller holds the lane). */
    private boolean full(Lane lane) {
        if (lane.queue.size() >= bounds.maxTransactions()) {
            return true;
        }
        int events = 0;
        long bytes = 0;
        for (Member m : lane.queue) {
            events += m.changes.size();
            bytes += m.bytes;
        }
        return events >= bounds.maxEvents() || bytes >= bounds.maxBytes();
    }

    /** Completes every member of the group, committed or failed; never throws. */
    private void commit(StreamId stream, List<Member> group) {
        List<Member> remaining = new ArrayList<>(group);
        while (!remaining.isEmpty()) {
            try {
                List<WriteResult> results = physical.commit(stream, transactions(remaining));
                metrics.coalesced(stream, remaining.size());
                for (int i = 0; i < remaining.size(); i++) {
                    remaining.get(i).succeed(results.get(i));
                }
                return;
            } catch (LogicalTransactionFailure f) {
                remaining.remove(f.index()).fail(f.failure());
                if (!remaining.isEmpty()) {
                    metrics.retried(stream);
                }
            } catch (CommitFailure f) {
                remaining.forEach(m -> m.fail(f.failure()));
                return;
            } catch (Throwable t) {
                if (remaining.size() == 1 || refusesTheStream(t)) {
                    remaining.forEach(m -> m.fail(t));
                    return;
                }
                metrics.retried(stream);
                for (Member m : remaining) {
                    commitAlone(stream, m);
                }
                return;
            }
        }
    }

    /**
     * A refusal of the stream itself ({@link WriteGate}: maintenance, a fenced epoch, a rollback, the control store
     * out of reach, all 503; an import fence or a move, {@link WriteBlockedException}) applies to every write of the group alike: each would only be refused again alone, or,
     * after a fence, get through on the epoch it just re-read, which a fenced write must not.
     */
    private static boolean refusesTheStream(Throwable t) {
        return t instanceof WriteBlockedException || t instanceof ApiException api && api.code().status() == 503;
    }

    private void commitAlone(StreamId stream, Member m) {
        try {
            m.succeed(physical.commit(stream, List.of(m.write)).get(0));
            metrics.coalesced(stream, 1);
        } catch (LogicalTransactionFailure f) {
            m.fail(f.failure());
        } catch (CommitFailure f) {
            m.fail(f.failure());
        } catch (Throwable t) {
            m.fail(t);
        }
    }

    private static List<LogicalWrite> transactions(List<Member> members) {
        List<LogicalWrite> out = new ArrayList<>(members.size());
        for (Member m : members) {
            out.add(m.write);
        }
        return out;
    }

    /**
     * One physical transaction of several logical ones: all commit or none does.
     */
    @FunctionalInterface
    interface PhysicalWrite {

        /**
         * @return one result per logical transaction, in order
         * @throws LogicalTransactionFailure when one transaction's own changes failed (nothing was written)
         * @throws CommitFailure             when the commit itself failed (outcome unknown)
         */
        List<WriteResult> commit(StreamId stream, List<LogicalWrite> transactions);
    }

    /** The commit of a physical transaction failed after every statement succeeded: its outcome is unknown. */
    static final class CommitFailure extends RuntimeException {

        CommitFailure(RuntimeException cause) {
            super("commit failed: " + cause.getMessage(), cause, false, false);
        }

        RuntimeException failure() {
            return (RuntimeException) getCause();
        }
    }

    /** The writes of one stream waiting, and whether a leader is at work. */
    private static final class Lane {
        final StreamId stream;
        final ArrayDeque<Member> queue = new ArrayDeque<>();
        boolean busy;
        /** Whether the leader is waiting for more writes ({@code max-wait}): a new write wakes it. */
        boolean lingering;
        /** Writes in the last physical transaction the lane started. */
        int lastGroupSize;
        /** Writes of the physical transaction being committed now (0 between two). */
        int inFlight;
        /** When the last write arrived, and a moving average of the gaps between arrivals (weight 1/8 each). */
        long lastArrival;
        long meanGapNanos = MAX_GAP_NANOS;

        Lane(StreamId stream) {
            this.stream = stream;
            this.lastArrival = System.nanoTime() - MAX_GAP_NANOS;
        }

        /**
         * Counts an arrival (caller holds the lane). A gap counts as at most a second, so after a long pause a few
         * quick writes make the stream busy again. Threads may take the lane in another order than they arrived;
         * the last arrival never moves back.
         */
        void arrived(long now) {
            long gap = Math.min(MAX_GAP_NANOS, Math.max(0, now - lastArrival));
            lastArrival = Math.max(lastArrival, now);
            meanGapNanos += (gap - meanGapNanos) / 8;
        }

        /** The stream's recent write rate, from the average gap (caller holds the lane). */
        double ratePerSecond() {
            return 1e9 / Math.max(1, meanGapNanos);
        }
    }

    /** One logical write and the thread waiting for it. */
    private static final class Member {
        final LogicalWrite write;
        final List<Change> changes;
        final long bytes;
        final long enqueued = System.nanoTime();
        private boolean done;
        private boolean promoted;
        private WriteResult result;
        private Throwable failure;

        Member(LogicalWrite write, long bytes) {
            this.write = write;
            this.changes = write.changes();
            this.bytes = bytes;
        }

        synchronized void succeed(WriteResult r) {
            result = r;
            done = true;
            notifyAll();
        }

        synchronized void fail(Throwable t) {
            failure = t;
            done = true;
            notifyAll();
        }

        synchronized void promote() {
            promoted = true;
            notifyAll();
        }

        synchronized boolean isDone() {
            return done;
        }

        /**
         * Waits until the write is done or its thread must lead. Not interruptible: once queued, the write will be
         * committed or failed by some leader, and its caller must learn which.
         */
        synchronized void awaitTurn() {
            boolean interrupted = false;
            while (!done && !promoted) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        synchronized WriteResult outcome() {
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            return result;
        }
    }
}
