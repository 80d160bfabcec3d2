package com.acme.catalog.resolver.epoch;

import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A rotation's statements in the resolver's own database, run in one transaction: lock the open cursor, fence it,
 * open the next epoch's cursor at position 0 (chain digest d0), and close what belonged to the fenced epoch. Outbox
 * rows are never touched: they keep their epoch and age out.
 */
@Repository
class RotationRepository {

    private static final String SQL_LOCK_OPEN = """
            SELECT epoch, position FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
               FOR UPDATE
            """;
    private static final String SQL_NEWEST_EPOCH = """
            SELECT coalesce(max(epoch), 0) FROM stream_cursor WHERE tenant = ? AND catalog = ?
            """;
    /** Fences whatever cursor is open (a concurrent rotation's, committed while this one waited, included). */
    private static final String SQL_FENCE = """
            UPDATE stream_cursor SET fenced_at = clock_timestamp(), updated_at = now()
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
            """;
    private static final String SQL_OPEN = """
            INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES (?, ?, ?)
            """;
    /** Leases pin epochs that no longer exist for writers: released, so no export of them can turn READY. */
    private static final String SQL_RELEASE_LEASES = """
            UPDATE retention_lease SET released_at = clock_timestamp()
             WHERE tenant = ? AND catalog = ? AND epoch < ? AND released_at IS NULL
            """;
    /** Delivery claims of the fenced epochs: nobody delivers them again, so nobody needs to hold them. */
    private static final String SQL_DROP_CLAIMS = """
            UPDATE relay_delivery SET claimed_by = NULL, claim_until = NULL
             WHERE tenant = ? AND catalog = ? AND epoch < ? AND claimed_by IS NOT NULL
            """;

    private final JdbcClient jdbc;

    RotationRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Locks the open cursor row until the transaction ends; empty when the stream has none. */
    Optional<OpenCursor> lockOpen(StreamId s) {
        return jdbc.sql(SQL_LOCK_OPEN).params(s.tenant(), s.catalog())
                .query((rs, n) -> new OpenCursor(rs.getLong(1), rs.getLong(2))).optional();
    }

    /** The highest epoch the database has a cursor of, open or fenced; 0 for none. */
    long newestEpoch(StreamId s) {
        return jdbc.sql(SQL_NEWEST_EPOCH).params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    /**
     * Fences the open cursor, opens {@code epoch} at position 0, releases the older epochs' live leases and drops
     * their delivery claims.
     *
     * @return how many leases were released
     */
    int fenceAndOpen(StreamId s, long epoch) {
        jdbc.sql(SQL_FENCE).params(s.tenant(), s.catalog()).update();
        jdbc.sql(SQL_OPEN).params(s.tenant(), s.catalog(), epoch).update();
        jdbc.sql(SQL_DROP_CLAIMS).params(s.tenant(), s.catalog(), epoch).update();
        return jdbc.sql(SQL_RELEASE_LEASES).params(s.tenant(), s.catalog(), epoch).update();
    }

    /** The open cursor as locked. */
    record OpenCursor(long epoch, long position) {
    }
}
