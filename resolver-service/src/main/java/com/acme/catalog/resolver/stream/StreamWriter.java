package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * The write protocol: lock the stream's cursor row, take gapless positions, write current state, revisions and
 * one outbox row per event, advance the cursor, commit once. A rollback consumes no position.
 */
@Service
public class StreamWriter {

    private final TransactionTemplate tx;
    private final CursorRepository cursors;
    private final ObjectMapper json;
    private final StreamMetrics metrics;
    private final DirectStateAccess direct;
    private final ChangeApplier applier;

    public StreamWriter(TransactionTemplate tx, CursorRepository cursors, AcceptedStateRepository state,
            OutboxRepository outbox, ObjectMapper json, StreamMetrics metrics) {
        this.tx = tx;
        this.cursors = cursors;
        this.json = json;
        this.metrics = metrics;
        this.direct = new DirectStateAccess(state, outbox);
        this.applier = new ChangeApplier(json);
    }

    /** One logical transaction in its own physical commit. */
    public WriteResult write(StreamId stream, List<Change> changes) {
        return writeAll(stream, List.of(changes)).get(0);
    }

    /**
     * Several logical transactions, each with its own transaction id, in one physical commit: all are committed
     * or none is.
     */
    public List<WriteResult> writeAll(StreamId stream, List<List<Change>> transactions) {
        long started = System.nanoTime();
        try {
            List<WriteResult> results = tx.execute(status -> appendLocked(stream, transactions));
            metrics.committed(stream, results, System.nanoTime() - started);
            return results;
        } catch (RuntimeException e) {
            metrics.failed(stream, System.nanoTime() - started);
            throw e;
        }
    }

    /**
     * The body of {@link #writeAll} for a caller that owns the surrounding transaction (bootstrap chunks, tests
     * that roll back after the lock). The cursor stays locked until that transaction ends.
     */
    public List<WriteResult> appendLocked(StreamId stream, List<List<Change>> transactions) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("appendLocked needs an open transaction");
        }
        Cursor locked = cursors.lockCursor(stream);
        EventAppender appender = new EventAppender(json, locked, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> results = applier.applyAll(stream, appender, transactions, direct);
        cursors.advance(locked, appender.cursor());
        return results;
    }
}
