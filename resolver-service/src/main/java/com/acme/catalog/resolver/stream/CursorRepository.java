package com.acme.catalog.resolver.stream;

import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The per-stream cursor row: the lock every projection-affecting write takes first. */
@Repository
public class CursorRepository {

    static final String SQL_LOCK_OPEN = """
            SELECT epoch, position, chain_digest FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
               FOR UPDATE
            """;
    private static final String SQL_OPEN_FIRST_EPOCH = """
            INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES (?, ?, 1) ON CONFLICT DO NOTHING
            """;
    private static final String SQL_READ_OPEN = """
            SELECT epoch, position, chain_digest FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
            """;
    static final String SQL_ADVANCE = """
            UPDATE stream_cursor SET position = ?, chain_digest = ?, updated_at = now()
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ? AND fenced_at IS NULL
            """;
    /** The advance plus a notification PostgreSQL delivers at commit, waking the outbox relay at once. */
    static final String SQL_ADVANCE_AND_NOTIFY = "WITH moved AS (" + SQL_ADVANCE.strip() + """
             RETURNING tenant, catalog, epoch)
            SELECT pg_notify('outbox_committed', tenant || '/' || catalog || '/' || epoch) FROM moved
            """;

    private final JdbcClient jdbc;

    public CursorRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Locks the stream's open cursor row until the surrounding transaction ends, creating it at epoch 1 (position
     * 0) on the stream's first write. Concurrent first writers are safe: the unique index makes the second insert
     * wait for the first and then do nothing.
     *
     * @return the locked cursor; never null
     * @throws ApiException {@code STREAM_FENCED} when the stream has no open epoch
     */
    public Cursor lockCursor(StreamId stream) {
        Optional<Cursor> locked = selectForUpdate(stream);
        if (locked.isPresent()) {
            return locked.get();
        }
        jdbc.sql(SQL_OPEN_FIRST_EPOCH).params(stream.tenant(), stream.catalog()).update();
        return selectForUpdate(stream).orElseThrow(() -> new ApiException(ProblemCode.STREAM_FENCED,
                "stream " + stream + " has no open history epoch; writes are fenced"));
    }

    private Optional<Cursor> selectForUpdate(StreamId stream) {
        return jdbc.sql(SQL_LOCK_OPEN).params(stream.tenant(), stream.catalog())
                .query((rs, n) -> new Cursor(stream, rs.getLong(1), rs.getLong(2), rs.getString(3)))
                .optional();
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
        int rows = jdbc.sql(SQL_ADVANCE_AND_NOTIFY)
                .params(to.position(), to.chainDigest(), from.stream().tenant(), from.stream().catalog(),
                        from.epoch(), from.position())
                .query().listOfRows().size();
        if (rows != 1) {
            throw new IllegalStateException("cursor of " + from.stream() + " epoch " + from.epoch()
                    + " moved under a held lock (expected position " + from.position() + ")");
        }
    }
}
