package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.idempotency.CommitOutcome;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * The write protocol: lock the stream's cursor row, take gapless positions, write current state, revisions and
 * one outbox row per event, advance the cursor, commit once. A rollback consumes no position.
 *
 * <p>Live writes ({@link #write}) go through {@link ChunkWriter#appendLocked} (three round trips per physical
 * transaction whatever its size) and, unless {@code resolver.write.coalescing.enabled} is false, through a
 * {@link WriteCoalescer} that joins concurrent writes of one stream into one physical transaction.
 * {@link #appendLocked} keeps the one-statement-per-read-and-write reference path ({@link DirectStateAccess}).
 */
@Service
public class StreamWriter {

    private final TransactionTemplate tx;
    private final CursorRepository cursors;
    private final ChunkWriter chunkWriter;
    private final ObjectMapper json;
    private final StreamMetrics metrics;
    private final DirectStateAccess direct;
    private final ChangeApplier applier;
    private final WriteCoalescer coalescer;

    public StreamWriter(TransactionTemplate tx, CursorRepository cursors, ChunkWriter chunkWriter,
            AcceptedStateRepository state, OutboxRepository outbox, ObjectMapper json, StreamMetrics metrics,
            CoalescingProperties coalescing) {
        this.tx = tx;
        this.cursors = cursors;
        this.chunkWriter = chunkWriter;
        this.json = json;
        this.metrics = metrics;
        this.direct = new DirectStateAccess(state, outbox);
        this.applier = new ChangeApplier(json);
        this.coalescer = coalescing.enabled() ? new WriteCoalescer(this::commitAttributed, coalescing, metrics)
                : null;
    }

    /**
     * One logical transaction, committed in a physical transaction of its own or shared with concurrent writes of
     * the same stream; either way with its own transaction id and positions, and the same outcome. Called inside
     * an open transaction, it joins that transaction and is never coalesced.
     */
    public WriteResult write(StreamId stream, List<Change> changes) {
        return write(stream, changes, 0);
    }

    /**
     * {@link #write(StreamId, List)} for a request of {@code bytes} bytes (0: unknown), which counts against the
     * coalescing byte bound.
     */
    public WriteResult write(StreamId stream, List<Change> changes, long bytes) {
        return write(stream, LogicalWrite.unkeyed(changes), bytes);
    }

    /**
     * {@link #write(StreamId, List, long)} for a write that may carry an idempotency key. Under the cursor lock, a
     * key this identity stored on this stream before answers the stored result and writes nothing (the same request)
     * or fails with 422 {@code IDEMPOTENCY_KEY_REUSED} (another request); a new key is stored with the result in the
     * write's own transaction. Coalesced or alone, the answer is the same.
     *
     * @throws com.acme.catalog.contracts.ApiException 503 {@code OUTCOME_UNKNOWN} when the commit failed: the write
     *         may or may not be committed (whole or not at all); a retry with the same key tells which
     */
    public WriteResult write(StreamId stream, LogicalWrite write, long bytes) {
        // inside a caller's transaction the write joins it, so it must not carry other callers' writes
        if (coalescer != null && !TransactionSynchronizationManager.isActualTransactionActive()) {
            return coalescer.write(stream, write, bytes);
        }
        return commitOne(stream, List.of(write)).get(0);
    }

    /**
     * Several logical transactions, each with its own transaction id, in one physical commit: all are committed
     * or none is.
     */
    public List<WriteResult> writeAll(StreamId stream, List<List<Change>> transactions) {
        List<LogicalWrite> writes = new ArrayList<>(transactions.size());
        for (List<Change> t : transactions) {
            writes.add(LogicalWrite.unkeyed(t));
        }
        return commitOne(stream, writes);
    }

    private List<WriteResult> commitOne(StreamId stream, List<LogicalWrite> writes) {
        try {
            return commitAttributed(stream, writes);
        } catch (LogicalTransactionFailure e) {
            throw e.failure();
        } catch (WriteCoalescer.CommitFailure e) {
            throw e.failure();
        }
    }

    /** Writes in the coalescer's group in this process right now (tests and diagnostics). */
    int queued(StreamId stream) {
        return coalescer == null ? 0 : coalescer.queued(stream);
    }

    /** Writes of the stream inside the coalescer (queued or being committed); -1 when writes are not coalesced. */
    int pending(StreamId stream) {
        return coalescer == null ? -1 : coalescer.pending(stream);
    }

    /** One physical transaction through the buffered path, telling apart whose failure and a failed commit. */
    private List<WriteResult> commitAttributed(StreamId stream, List<LogicalWrite> writes) {
        long started = System.nanoTime();
        boolean[] written = new boolean[1];
        boolean joined = TransactionSynchronizationManager.isActualTransactionActive();
        try {
            ChunkWriter.Appended appended = tx.execute(status -> {
                ChunkWriter.Appended a = chunkWriter.appendAttributed(stream, writes);
                written[0] = true;
                return a;
            });
            if (joined && TransactionSynchronizationManager.isSynchronizationActive()) {
                // the write joined a caller's transaction: it is committed only when that one commits, and its
                // positions must not reach the high-water mark (or this instance's acknowledged mark) before
                tellAtCompletion(stream, appended.applied(), started);
            } else {
                metrics.committed(stream, appended.applied(), System.nanoTime() - started);
            }
            return appended.results();
        } catch (RuntimeException e) {
            metrics.failed(stream, System.nanoTime() - started);
            if (written[0]) {
                // the commit failed: the client learns that its outcome is unknown (503), never a bare 500
                throw new WriteCoalescer.CommitFailure(CommitOutcome.unknown("a write to stream " + stream, e));
            }
            throw e;
        }
    }

    /** Records the joined write when the caller's transaction ends: committed, or failed when it rolled back. */
    private void tellAtCompletion(StreamId stream, List<WriteResult> applied, long started) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                if (status == STATUS_COMMITTED) {
                    metrics.committed(stream, applied, System.nanoTime() - started);
                } else {
                    metrics.failed(stream, System.nanoTime() - started);
                }
            }
        });
    }

    /**
     * The one-statement-per-read-and-write reference path for a caller that owns the surrounding transaction
     * (bootstrap chunks without batching, the bootstrap's diagnosis of a failed chunk, tests comparing it with
     * the buffered path). Same positions, revisions, rows, wire text and digests as {@link #write}. The cursor
     * stays locked until that transaction ends.
     */
    public List<WriteResult> appendLocked(StreamId stream, List<List<Change>> transactions) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("appendLocked needs an open transaction");
        }
        Cursor locked = cursors.lockCursor(stream);
        EventAppender appender = new EventAppender(json, locked, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> results = LogicalTransactionFailure.unwrap(
                () -> applier.applyAll(stream, appender, transactions, direct));
        cursors.advance(locked, appender.cursor());
        return results;
    }
}
