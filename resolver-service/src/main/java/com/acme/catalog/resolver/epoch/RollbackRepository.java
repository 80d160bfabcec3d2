package com.acme.catalog.resolver.epoch;

import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Rollback marks on the open cursor rows of the resolver's own database ({@code stream_cursor.rolled_back_at}). */
@Repository
class RollbackRepository {

    private static final String SQL_OPEN_CURSORS = """
            SELECT tenant, catalog, epoch, position, rolled_back_at IS NOT NULL AS rolled_back
              FROM stream_cursor WHERE fenced_at IS NULL
            """;
    /**
     * Marks the open cursor of (stream, epoch) rolled back if it is still below {@code position}. The row lock makes
     * the comparison see the cursor as committed last (a write in flight finishes first), so a cursor that moved past
     * the position meanwhile is never marked.
     */
    private static final String SQL_MARK = """
            UPDATE stream_cursor SET rolled_back_at = clock_timestamp(), rolled_back_reason = ?
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND fenced_at IS NULL AND rolled_back_at IS NULL
               AND position < ?
            """;
    private static final String SQL_MARKED = """
            SELECT EXISTS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ?
                                                         AND fenced_at IS NULL AND rolled_back_at IS NOT NULL)
            """;

    private final JdbcClient jdbc;

    RollbackRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<OpenCursor> openCursors() {
        return jdbc.sql(SQL_OPEN_CURSORS).query((rs, n) -> new OpenCursor(
                new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3), rs.getLong(4), rs.getBoolean(5)))
                .list();
    }

    /** @return whether this call marked it (false: already marked, not open, or no longer below the position) */
    boolean mark(StreamId s, long epoch, long below, String reason) {
        return jdbc.sql(SQL_MARK).params(reason, s.tenant(), s.catalog(), epoch, below).update() == 1;
    }

    boolean marked(StreamId s, long epoch) {
        return jdbc.sql(SQL_MARKED).params(s.tenant(), s.catalog(), epoch).query(Boolean.class).single();
    }

    /** An open cursor row: its epoch, committed position and whether a rollback is recorded on it. */
    record OpenCursor(StreamId stream, long epoch, long position, boolean rolledBack) {
    }
}
