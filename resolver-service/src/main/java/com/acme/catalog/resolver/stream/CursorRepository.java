package com.acme.catalog.resolver.stream;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.ResultColumns;
import com.acme.catalog.resolver.stream.WriteGate.CursorLock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The per-stream cursor row: the lock every projection-affecting write takes first, and, with it, the
 * {@link WriteGate}'s check of maintenance, the epoch fence and rollbacks, and the {@link WriteBlock} of an import
 * fence or a move.
 */
@Repository
public class CursorRepository {

    /**
     * The maintenance hold, then the open cursor row locked: two statements in one round trip. Under READ COMMITTED
     * the second statement's snapshot is taken after the hold was granted, so it reads the maintenance switch as the
     * last switch committed it, and no switch can commit until this transaction ends ({@link MaintenanceSwitch}).
     * The row's {@link WriteBlock} (an import fence, a move) is read from the locked row itself, so a write that
     * waited for the lock reads what the lock's holder committed. Every write path locks the cursor with this
     * statement (alone, or included in a round trip of several statements that starts with the lock:
     * {@link BatchWriteRepository}); read its results with {@link #nextLock}. Only the open epoch's row
     * ({@code fenced_at IS NULL}) is ever locked: a rotation fences the old row, so a writer of the old epoch finds
     * no row to write to.
     */
    static final BoundSql<StreamId> LOCK_OPEN = BoundSql.<StreamId>builder()
            .sql(MaintenanceSwitch.SQL_HOLD).sql(";\n")
            .sql("""
                    SELECT epoch, position, chain_digest, rolled_back_at IS NOT NULL AS rolled_back,
                           (""").sql(MaintenanceSwitch.SQL_ENABLED).sql("""
                    ) AS maintenance,
                           (""").sql(WriteBlock.SQL_KIND).sql(") AS write_block, ").sql(WriteBlock.SQL_DETAIL).sql("""

                      FROM stream_cursor
                     WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
                       FOR UPDATE OF stream_cursor
                    """, StreamId::tenant, StreamId::catalog)
            .build();
    /** The text of {@link #LOCK_OPEN}. */
    static final String SQL_LOCK_OPEN = LOCK_OPEN.sql();
    private static final ResultColumns LOCK_COLUMNS = ResultColumns.of("epoch", "position", "chain_digest",
            "rolled_back", "maintenance", "write_block", "block_since", "move_target");
    /**
     * What blocks writes of the stream, read without a lock: the caller changes nothing a write or an import
     * orders by, so it must not wait behind a write holding the cursor row.
     */
    private static final String SQL_BLOCK = BoundSql.<StreamId>builder()
            .sql("SELECT (").sql(WriteBlock.SQL_KIND).sql(") AS write_block, ").sql(WriteBlock.SQL_DETAIL).sql("""

                      FROM stream_cursor
                     WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
                    """, StreamId::tenant, StreamId::catalog)
            .build().sql();
    private static final ResultColumns BLOCK_COLUMNS = ResultColumns.of("write_block", "block_since", "move_target");
    private static final String SQL_OPEN_FIRST_EPOCH = """
            INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """;
    private static final String SQL_READ_OPEN = """
            SELECT epoch, position, chain_digest FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
            """;
    static final String SQL_ADVANCE = """
            UPDATE stream_cursor SET position = ?, chain_digest = ?, updated_at = now()
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ? AND fenced_at IS NULL
            """;
    /**
     * {@link #SQL_ADVANCE} with its parameters, for a statement that advances the cursor as one of its parts
     * ({@link BatchWriteRepository}); it moves at most one row.
     */
    static final BoundSql<Advance> ADVANCE = BoundSql.<Advance>builder()
            .sql(SQL_ADVANCE, a -> a.to().position(), a -> a.to().chainDigest(), a -> a.stream().tenant(),
                    a -> a.stream().catalog(), a -> a.from().epoch(), a -> a.from().position())
            .build();
    /** The advance plus a notification PostgreSQL delivers at commit, waking the outbox relay at once. */
    private static final BoundSql<Advance> ADVANCE_AND_NOTIFY = BoundSql.<Advance>builder()
            .sql("WITH moved AS (").include(ADVANCE, a -> a).sql("""
                     RETURNING tenant, catalog, epoch)
                    SELECT pg_notify('outbox_committed', tenant || '/' || catalog || '/' || epoch) FROM moved
                    """)
            .build();

    private final JdbcClient jdbc;
    private final Supplier<List<StreamOpening>> openings;
    private final JdbcTemplate template;
    private final WriteGate gate;

    public CursorRepository(JdbcClient jdbc, JdbcTemplate template, WriteGate gate) {
        this(jdbc, template, gate, List::of);
    }

    /**
     * @param openings looked up at each opening, not at construction: the retention capability that provides them
     *                 reads cursors through this repository
     */
    @Autowired
    public CursorRepository(JdbcClient jdbc, JdbcTemplate template, WriteGate gate,
            ObjectProvider<StreamOpening> openings) {
        this(jdbc, template, gate, () -> openings.orderedStream().toList());
    }

    private CursorRepository(JdbcClient jdbc, JdbcTemplate template, WriteGate gate,
            Supplier<List<StreamOpening>> openings) {
        this.jdbc = jdbc;
        this.template = template;
        this.gate = gate;
        this.openings = openings;
    }

    /**
     * Locks the stream's open cursor row until the surrounding transaction ends, creating it in the stream's current
     * epoch ({@link WriteGate#epochToOpen}, 1 for a new stream) at position 0 on the stream's first write, and lets
     * the {@link WriteGate} admit the write. The transaction that creates the row tells the {@link StreamOpening}s
     * (pattern subscribers are registered with the stream's first write). Concurrent first writers are safe: the
     * unique index makes the second insert wait for the first and then do nothing.
     *
     * @return the locked cursor; never null
     * @throws ApiException {@code STREAM_FENCED} when the stream has no open epoch, or whatever the gate refuses with
     */
    public Cursor lockCursor(StreamId stream) {
        CursorLock locked = selectForUpdate(stream);
        if (locked == null) {
            long epoch = gate.epochToOpen(stream);
            boolean opened = jdbc.sql(SQL_OPEN_FIRST_EPOCH).params(stream.tenant(), stream.catalog(), epoch)
                    .update() == 1;
            locked = selectForUpdate(stream);
            if (locked == null) {
                throw new ApiException(ProblemCode.STREAM_FENCED,
                        "stream " + stream + " has no open history epoch; writes are fenced");
            }
            if (opened) {
                // this transaction created the row: the stream's first write; a concurrent first writer found it
                openings.get().forEach(o -> o.opened(stream, epoch));
            }
        }
        return admit(stream, locked);
    }

    /**
     * Hands what a cursor lock read to the {@link WriteGate}, then refuses a write its stream's {@link WriteBlock}
     * stops (an import fence, a move): every write path calls this right after its lock.
     *
     * @return the locked cursor, when the write may go on
     */
    Cursor admit(StreamId stream, CursorLock locked) {
        gate.admit(stream, locked);
        if (locked.block() != null) {
            locked.block().refuse(stream);
        }
        return locked.cursor();
    }

    private CursorLock selectForUpdate(StreamId stream) {
        return template.execute(SQL_LOCK_OPEN, (PreparedStatementCallback<CursorLock>) ps -> {
            new ArgumentPreparedStatementSetter(new Object[] {stream.tenant(), stream.catalog()}).setValues(ps);
            ps.execute();
            return nextLock(ps, stream);
        });
    }

    /**
     * Reads the results of {@link #SQL_LOCK_OPEN} from a statement whose current result is the hold's: moves past
     * it to the lock's rows and leaves the statement there.
     *
     * @return what the lock read; null when the stream has no open cursor row (nothing is locked then)
     */
    static CursorLock nextLock(PreparedStatement ps, StreamId s) throws SQLException {
        if (!ps.getMoreResults()) {
            throw new IllegalStateException("the cursor lock after the maintenance hold answered no rows");
        }
        try (ResultSet rs = ps.getResultSet()) {
            ResultColumns.Rows row = LOCK_COLUMNS.in(rs);
            if (!row.next()) {
                return null;
            }
            return new CursorLock(new Cursor(s, row.getLong("epoch"), row.getLong("position"),
                    row.getString("chain_digest")), row.getBoolean("rolled_back"), row.getBoolean("maintenance"),
                    WriteBlock.read(row));
        }
    }

    /**
     * Refuses a change of the stream that does not take the cursor lock (a review case's rejection, which writes no
     * event and no accepted state) when the stream's {@link WriteBlock} stops writes, as committed when it reads;
     * it never waits for the cursor row (a rejection does not order behind writes). One racing the fence's commit
     * may pass: it changes nothing the import writes or reads.
     *
     * @throws WriteBlockedException as a write would be refused
     */
    public void refuseIfBlocked(StreamId stream) {
        WriteBlock block = template.execute(SQL_BLOCK, (PreparedStatementCallback<WriteBlock>) ps -> {
            new ArgumentPreparedStatementSetter(new Object[] {stream.tenant(), stream.catalog()}).setValues(ps);
            try (ResultSet rs = ps.executeQuery()) {
                ResultColumns.Rows row = BLOCK_COLUMNS.in(rs);
                return row.next() ? WriteBlock.read(row) : null;
            }
        });
        if (block != null) {
            block.refuse(stream);
        }
    }

    /**
     * Where a stream that was never written starts: position 0 (digest d0) of the epoch its first write opens.
     *
     * @throws ApiException 503 when that epoch cannot be known ({@link WriteGate#epochToOpen})
     */
    public Cursor firstCursor(StreamId stream) {
        return new Cursor(stream, gate.epochToOpen(stream), 0, ChainDigest.ZERO);
    }

    /** The committed cursor, without locking; empty when the stream was never written. */
    public Optional<Cursor> read(StreamId stream) {
        return jdbc.sql(SQL_READ_OPEN).params(stream.tenant(), stream.catalog())
                .query((rs, n) -> new Cursor(stream, rs.getLong(1), rs.getLong(2), rs.getString(3)))
                .optional();
    }

    /**
     * Moves the locked cursor from {@code from} to {@code to.position()}. Compare-and-set on the old position, so
     * a caller that does not hold the lock cannot silently overwrite.
     */
    public void advance(Cursor from, Cursor to) {
        int rows = jdbc.sql(ADVANCE_AND_NOTIFY.sql())
                .params(ADVANCE_AND_NOTIFY.params(new Advance(from.stream(), from, to)))
                .query().listOfRows().size();
        if (rows != 1) {
            throw new IllegalStateException("cursor of " + from.stream() + " epoch " + from.epoch()
                    + " moved under a held lock (expected position " + from.position() + ")");
        }
    }

    /** A compare-and-set move of the stream's open cursor from {@code from} to {@code to}. */
    record Advance(StreamId stream, Cursor from, Cursor to) {
    }
}
