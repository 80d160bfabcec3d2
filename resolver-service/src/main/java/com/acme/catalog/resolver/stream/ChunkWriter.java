package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import tools.jackson.databind.ObjectMapper;

/**
 * The write protocol of {@link StreamWriter#appendLocked} for many logical transactions in one physical
 * transaction, in three round trips whatever the number of events: the cursor lock with one prefetch of
 * everything the changes read, one statement with every row and the cursor advance, the commit. Same positions, revisions,
 * transaction ids (one new UUIDv7 per logical transaction), rows, wire text and chain digests as
 * {@link StreamWriter#appendLocked}, and the same exceptions for the same input; only the round trips differ.
 * The live write path ({@link StreamWriter#write}, coalesced by {@link WriteCoalescer}) and the bootstrap import
 * use it.
 *
 * <p>A writer that already knows the state before its transactions (the bootstrap import into an empty stream,
 * which learnt it from its validated file) can {@link #prepare} the rows without the database, ahead of the
 * transaction, and then {@link #writePrepared} them in two round trips: the cursor lock with the whole write,
 * conditional on the cursor being exactly where the rows were prepared from, then the commit.
 */
@Service
public class ChunkWriter {

    private final CursorRepository cursors;
    private final BatchWriteRepository batch;
    private final ObjectMapper json;
    private final ChangeApplier applier;
    private final WriteKeys writeKeys;

    ChunkWriter(CursorRepository cursors, BatchWriteRepository batch, ObjectMapper json, WriteKeys writeKeys) {
        this.cursors = cursors;
        this.batch = batch;
        this.json = json;
        this.writeKeys = writeKeys;
        this.applier = new ChangeApplier(json);
    }

    /**
     * Appends the transactions in order inside the caller's open transaction; the cursor stays locked until it
     * ends. Nothing is written if this throws (the caller rolls back anyway).
     *
     * @return one result per logical transaction, in order; never null
     */
    public List<WriteResult> appendLocked(StreamId stream, List<List<Change>> transactions) {
        return LogicalTransactionFailure.unwrap(() -> appendAttributed(stream, unkeyed(transactions)).results());
    }

    /**
     * {@link #appendLocked} for writes that may carry idempotency keys, and a failure caused by one logical
     * transaction's own changes (or its key, used before for another request) comes as a
     * {@link LogicalTransactionFailure} naming it (for {@link WriteCoalescer}). The keys are looked up after the
     * cursor lock is granted: a write whose key is stored answers the stored result and writes nothing, and so does
     * a write whose key an earlier write of the same list carries; every other keyed write stores its key with its
     * result in this transaction ({@link KeyPlan}).
     */
    Appended appendAttributed(StreamId stream, List<LogicalWrite> writes) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("appendLocked needs an open transaction");
        }
        List<List<Change>> transactions = new ArrayList<>(writes.size());
        List<IdempotencyKey> keys = new ArrayList<>();
        for (LogicalWrite w : writes) {
            transactions.add(w.changes());
            if (w.key() != null) {
                keys.add(w.key());
            }
        }
        BufferedStateAccess.Reads reads = BufferedStateAccess.reads(transactions);
        // the keys are read after the lock (in the same round trip): a key committed by a write before it is seen,
        // one committed after it cannot be yet
        BatchWriteRepository.LockedPrefetch lp = batch.lockAndPrefetch(stream, reads.idsByType(), reads.refs(),
                keys);
        Cursor locked = lp.lock() == null ? null : cursors.admit(stream, lp.lock());
        BatchWriteRepository.Prefetched found = lp.prefetched();
        Map<WriteKeys.Scoped, WriteKeys.Stored> stored = lp.keys();
        if (locked == null) {
            // first write of the stream: create and lock its cursor row, then read again under the lock
            locked = cursors.lockCursor(stream);
            found = batch.prefetch(stream, reads.idsByType(), reads.refs());
            stored = keys.isEmpty() ? Map.of() : writeKeys.find(stream, keys);
        }
        KeyPlan plan = KeyPlan.of(writes, stored);
        if (plan.nothingToApply()) {
            return new Appended(plan.results(List.of()), List.of());
        }
        BufferedStateAccess buffer = new BufferedStateAccess(batch, stream, reads, found);
        EventAppender appender = new EventAppender(json, locked, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> applied;
        try {
            applied = applier.applyAll(stream, appender, plan.toApply(), buffer);
        } catch (LogicalTransactionFailure f) {
            throw new LogicalTransactionFailure(plan.writeIndex(f.index()), f.failure());
        }
        buffer.flush(locked, appender.cursor(), plan.toRemember(applied));
        return new Appended(plan.results(applied), applied);
    }

    private static List<LogicalWrite> unkeyed(List<List<Change>> transactions) {
        List<LogicalWrite> out = new ArrayList<>(transactions.size());
        for (List<Change> t : transactions) {
            out.add(LogicalWrite.unkeyed(t));
        }
        return out;
    }

    /**
     * What {@link #appendAttributed} did.
     *
     * @param results one per write, in order (a repeated key's the stored or earlier result)
     * @param applied the results of the writes it wrote, in order (none of a repeated key)
     */
    record Appended(List<WriteResult> results, List<WriteResult> applied) {
    }

    /**
     * Applies the transactions as {@link #appendLocked} would, from cursor {@code from} and the caller's knowledge of
     * the aggregates' state before them, without touching the database. Same positions, revisions, transaction ids,
     * rows, wire text and chain digests as {@link #appendLocked} would produce from that state.
     *
     * @param prior      the state before the transactions of every aggregate they touch (absent: never existed)
     *                   and every item revision their releases name that is live
     * @param occurredAt the events' {@code occurredAt}
     */
    public Prepared prepare(StreamId stream, Cursor from, List<List<Change>> transactions, PriorState prior,
            Instant occurredAt) {
        BufferedStateAccess.Reads reads = BufferedStateAccess.reads(transactions);
        BufferedStateAccess buffer = new BufferedStateAccess(batch, stream, reads, prior.toPrefetched());
        EventAppender appender = new EventAppender(json, from, occurredAt.truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> results = LogicalTransactionFailure.unwrap(
                () -> applier.applyAll(stream, appender, transactions, buffer));
        Cursor to = appender.cursor();
        return new Prepared(stream, from, to, List.copyOf(results),
                BatchWriteRepository.preparedParams(buffer.rows(), from, to));
    }

    /**
     * Writes prepared rows inside the caller's open transaction: locks the cursor (creating the stream's first
     * epoch on its first write, as {@link CursorRepository#lockCursor} does) and, in the same round trip, writes
     * everything and advances the cursor, if and only if the locked cursor is the one the rows were prepared from.
     *
     * @return the prepared results, now written
     * @throws CursorMovedException when the cursor is elsewhere (nothing of the rows was written)
     */
    public List<WriteResult> writePrepared(Prepared p) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("writePrepared needs an open transaction");
        }
        BatchWriteRepository.PreparedWrite w = batch.lockThenWritePrepared(p.stream(), p.params());
        if (w.lock() == null) {
            // first write of the stream: create and lock its cursor row, then write under the lock
            cursors.lockCursor(p.stream());
            w = batch.lockThenWritePrepared(p.stream(), p.params());
        }
        // the rows are in, not committed: a refusal rolls them back with the caller's transaction
        Cursor locked = w.lock() == null ? null : cursors.admit(p.stream(), w.lock());
        if (!w.written()) {
            throw new CursorMovedException(p.from(), locked);
        }
        return p.results();
    }

    /**
     * Rows prepared by {@link #prepare}, waiting to be written.
     *
     * @param from    the cursor they must be written on
     * @param to      the cursor after them
     * @param results one per logical transaction, in order
     */
    public record Prepared(StreamId stream, Cursor from, Cursor to, List<WriteResult> results, Object[] params) {
    }

    /** The state before a batch of transactions as its writer knows it, instead of reading it under the lock. */
    public static final class PriorState {

        private final Map<String, Map<String, CurrentRevision>> current = new HashMap<>();
        private final java.util.Set<String> liveItemRevisions = new HashSet<>();

        /** The aggregate's latest revision before the batch, and whether that revision deleted it. */
        public PriorState current(String aggregateType, String id, int revision, boolean deleted) {
            current.computeIfAbsent(aggregateType, t -> new HashMap<>()).put(id, new CurrentRevision(revision, deleted));
            return this;
        }

        /** The item revision exists before the batch and is not a deletion. */
        public PriorState liveItemRevision(String itemId, int revision) {
            liveItemRevisions.add(BatchWriteRepository.key(itemId, revision));
            return this;
        }

        BatchWriteRepository.Prefetched toPrefetched() {
            return new BatchWriteRepository.Prefetched(current, liveItemRevisions);
        }
    }

    /** The stream's cursor was not where prepared rows expected it: someone else wrote the stream since. */
    public static final class CursorMovedException extends RuntimeException {

        private final transient Cursor expected;
        private final transient Cursor found;

        CursorMovedException(Cursor expected, Cursor found) {
            super("the cursor of " + expected.stream() + " is at " + (found == null ? "no open epoch"
                    : "epoch " + found.epoch() + " position " + found.position()) + ", the rows were prepared for epoch "
                    + expected.epoch() + " position " + expected.position());
            this.expected = expected;
            this.found = found;
        }

        public Cursor expected() {
            return expected;
        }

        /** @return the cursor as locked, or null when the stream has no open epoch */
        public Cursor found() {
            return found;
        }
    }
}
