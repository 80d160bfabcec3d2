package com.acme.catalog.resolver.bootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.db.SqlStates;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChunkWriter;
import com.acme.catalog.resolver.stream.StreamMetrics;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.stream.WriteResult;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Commits one chunk as one READ COMMITTED transaction (PostgreSQL's default, verified in the first chunk) through the stream package's write protocol: every event is
 * its own logical transaction (new UUIDv7 id, ordinal 0, count 1). Inside the transaction it checks that the chunk
 * starts right after the previous one (nobody else wrote the stream) and that every event got the revision its
 * {@code aggregateversion} says; otherwise the chunk rolls back whole. Chunks count in the write metrics like any
 * physical write transaction ({@code resolver_writes_total} per logical transaction, {@code resolver_write_seconds}).
 */
@Component
class ChunkCommitter {

    private static final String SQL_SYNCHRONOUS_COMMIT_OFF = "SET LOCAL synchronous_commit = off";
    private static final String SQL_ISOLATION = "SELECT current_setting('transaction_isolation')";

    private final TransactionTemplate transactions;
    private final StreamWriter writer;
    private final ChunkWriter chunkWriter;
    private final JdbcClient jdbc;
    private final StreamMetrics metrics;

    ChunkCommitter(PlatformTransactionManager transactionManager, StreamWriter writer, ChunkWriter chunkWriter,
            JdbcClient jdbc, StreamMetrics metrics) {
        // The pool's default isolation, checked in the first chunk (see below): asking for READ COMMITTED
        // explicitly would cost a "SHOW TRANSACTION ISOLATION LEVEL" round trip in every chunk.
        this.transactions = new TransactionTemplate(transactionManager);
        this.writer = writer;
        this.chunkWriter = chunkWriter;
        this.jdbc = jdbc;
        this.metrics = metrics;
    }

    /**
     * Writes and commits the chunk, whose first event must land at {@code previousPosition + 1}.
     *
     * @return the committed results and where the time went
     * @throws RuntimeException whatever made the chunk roll back; nothing of it is committed
     */
    Committed commit(StreamId stream, List<SnapshotEvent> events, long previousPosition, ImportOptions options) {
        return timed(stream, () -> write(stream, events, previousPosition, options));
    }

    /**
     * Writes and commits a chunk whose rows were prepared ahead ({@link ChunkPreparer}): one round trip for the
     * cursor lock and every row (written only if the cursor is where the rows were prepared from), then the commit.
     *
     * @return the committed results and where the time went
     * @throws RuntimeException whatever made the chunk roll back; nothing of it is committed
     */
    Committed commitPrepared(StreamId stream, List<SnapshotEvent> events, ChunkWriter.Prepared prepared,
            ImportOptions options) {
        long previousPosition = prepared.from().position();
        return timed(stream, () -> {
            if (previousPosition == 0) {
                requireReadCommitted();
            }
            if (options.synchronousCommitOff()) {
                jdbc.sql(SQL_SYNCHRONOUS_COMMIT_OFF).update();
            }
            List<WriteResult> r;
            try {
                r = chunkWriter.writePrepared(prepared);
            } catch (ChunkWriter.CursorMovedException moved) {
                throw new ApiException(ProblemCode.DESTINATION_NOT_EMPTY, "stream " + stream + " was written "
                        + "outside the import: event " + events.get(0).index() + " would land at position "
                        + (moved.found() == null ? "?" : moved.found().position() + 1) + ", expected "
                        + (previousPosition + 1));
            }
            verify(stream, events, r, previousPosition);
            return r;
        });
    }

    /**
     * Runs {@code chunk} in one transaction and commits it, timing the writes and the commit apart.
     *
     * @throws RuntimeException whatever made the chunk roll back; nothing of it is committed
     */
    private Committed timed(StreamId stream, Supplier<List<WriteResult>> chunk) {
        long started = System.nanoTime();
        long[] written = new long[1];
        List<WriteResult> results;
        try {
            results = transactions.execute(status -> {
                List<WriteResult> r = chunk.get();
                written[0] = System.nanoTime();
                return r;
            });
        } catch (RuntimeException e) {
            metrics.failed(stream, System.nanoTime() - started);
            throw e;
        }
        long committed = System.nanoTime();
        metrics.committed(stream, results, committed - started);
        return new Committed(results, written[0] - started, committed - written[0]);
    }

    private List<WriteResult> write(StreamId stream, List<SnapshotEvent> events, long previousPosition,
            ImportOptions options) {
        if (previousPosition == 0) {
            requireReadCommitted();
        }
        if (options.synchronousCommitOff()) {
            jdbc.sql(SQL_SYNCHRONOUS_COMMIT_OFF).update();
        }
        List<List<Change>> singletons = new ArrayList<>(events.size());
        for (SnapshotEvent e : events) {
            singletons.add(List.of(e.change()));
        }
        List<WriteResult> results = options.batched() ? chunkWriter.appendLocked(stream, singletons)
                : writer.appendLocked(stream, singletons);
        verify(stream, events, results, previousPosition);
        return results;
    }

    /**
     * Replays the chunk one event at a time in a transaction that is always rolled back, to name the first event
     * that fails on its own.
     *
     * @return the first failing event and why, or null when every event applies alone
     */
    Diagnosis diagnose(StreamId stream, List<SnapshotEvent> events, long previousPosition) {
        Diagnosis[] found = new Diagnosis[1];
        try {
            transactions.executeWithoutResult(status -> {
                status.setRollbackOnly();
                long position = previousPosition;
                for (SnapshotEvent e : events) {
                    try {
                        List<WriteResult> r = writer.appendLocked(stream, List.of(List.of(e.change())));
                        verify(stream, List.of(e), r, position);
                        position++;
                    } catch (RuntimeException ex) {
                        found[0] = Diagnosis.of(e, ex);
                        return;
                    }
                }
            });
        } catch (RuntimeException e) {
            if (found[0] == null) {
                throw e;
            }
        }
        return found[0];
    }

    /** Every pooled connection is configured alike, so the first chunk's isolation is every chunk's. */
    private void requireReadCommitted() {
        String isolation = jdbc.sql(SQL_ISOLATION).query(String.class).single();
        if (!"read committed".equals(isolation)) {
            throw new IllegalStateException("bootstrap chunks must run READ COMMITTED, the pool's transactions run "
                    + isolation);
        }
    }

    private static void verify(StreamId stream, List<SnapshotEvent> events, List<WriteResult> results,
            long previousPosition) {
        for (int i = 0; i < events.size(); i++) {
            SnapshotEvent e = events.get(i);
            WriteResult r = results.get(i);
            long expected = previousPosition + 1 + i;
            if (r.firstPosition() != expected || r.lastPosition() != expected) {
                throw new ApiException(ProblemCode.DESTINATION_NOT_EMPTY, "stream " + stream + " was written outside "
                        + "the import: event " + e.index() + " would land at position " + r.firstPosition()
                        + ", expected " + expected);
            }
            if (r.revision() != e.aggregateVersion()) {
                throw new ApiException(ProblemCode.INVALID_EVENT, "event " + e.index() + " (id " + e.id() + ") got "
                        + "revision " + r.revision() + " of " + e.change().aggregateType() + " " + e.subject()
                        + ", but its aggregateversion is " + e.aggregateVersion());
            }
        }
    }

    /** A committed chunk: its results and the nanoseconds spent writing and committing. */
    record Committed(List<WriteResult> results, long writeNanos, long commitNanos) {
    }

    /** The first event of a failed chunk that also fails alone, with its SQL state or problem code. */
    record Diagnosis(int index, String eventId, String sqlState, String code, String message) {

        static Diagnosis of(SnapshotEvent e, RuntimeException ex) {
            String code = ex instanceof ApiException a ? a.code().name() : null;
            return new Diagnosis(e.index(), e.id(), SqlStates.of(ex), code, publicMessage(ex));
        }
    }

    /**
     * What a client may read of a failure: the outermost contract failure's own message, else the SQL state only
     * (the database's words can carry values, table and constraint names, and go to the service log), else a
     * pointer to the log. Never a Java type name.
     */
    static String publicMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ApiException api && !(c instanceof ImportFailedException)) {
                return api.getMessage();
            }
        }
        String state = SqlStates.of(t);
        return state != null ? "the database refused the chunk (SQL state " + state + "); see the service log"
                : "internal error; see the service log";
    }

    /** The message of the innermost cause with one: the database's own words, for the service log only. */
    static String rootMessage(Throwable t) {
        String message = t.getMessage();
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
            if (c.getMessage() != null) {
                message = c.getMessage();
            }
        }
        return message == null ? t.getClass().getSimpleName() : message;
    }
}
