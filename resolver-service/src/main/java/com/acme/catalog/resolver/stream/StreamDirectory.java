package com.acme.catalog.resolver.stream;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.StreamSummary;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The streams this resolver holds, in pages: one indexed range read of the open cursors (with their pruned-through
 * P), so a caller learns every stream's epoch and head in {@code ceil(streams / limit)} requests, not one per stream.
 * Each carries the rollback mark of its open cursor ({@code rolled_back_at}, set by the epoch capability's rollback
 * detection), so a reader learns a rolled back history from the same listing; {@code rolledBackOnly} lists only those
 * (a product polls them more often than it sweeps every stream).
 */
@Repository
class StreamDirectory {

    private static final String SELECT = """
            SELECT c.tenant, c.catalog, c.epoch, c.position, c.chain_digest, coalesce(r.pruned_through, 0) AS pruned,
                   c.rolled_back_at
              FROM stream_cursor c
              LEFT JOIN stream_retention r ON r.tenant = c.tenant AND r.catalog = c.catalog AND r.epoch = c.epoch
             WHERE c.fenced_at IS NULL
            """;

    private static final String PAGE = """
               AND (CAST(:tenant AS text) IS NULL OR c.tenant = :tenant)
               AND (c.tenant, c.catalog) > (:afterTenant, :afterCatalog)
               AND (cardinality(CAST(:tenants AS text[])) = 0 OR c.tenant = ANY (CAST(:tenants AS text[])))
             ORDER BY c.tenant, c.catalog
             LIMIT :limit
            """;

    /** Every open cursor: the unique index {@code stream_cursor_open} in (tenant, catalog) order. */
    static final String SQL_PAGE = SELECT + PAGE;

    /**
     * Only the marked open cursors: its own statement (not a {@code NOT :flag OR …} predicate, which a generic plan
     * cannot match to a partial index) so it reads the partial index {@code stream_cursor_rolled_back} (V28).
     */
    static final String SQL_ROLLED_BACK_PAGE = SELECT + "   AND c.rolled_back_at IS NOT NULL\n" + PAGE;

    /**
     * One open cursor with its write blocks: the import fence only while its session holds the import lock
     * ({@code import_fence_held}, V34), the move whatever its state.
     */
    static final String SQL_ONE = """
            SELECT c.tenant, c.catalog, c.epoch, c.position, c.chain_digest, coalesce(r.pruned_through, 0) AS pruned,
                   c.rolled_back_at, c.import_since, c.import_by, c.import_pid,
                   CASE WHEN c.import_pid IS NULL THEN false
                        ELSE import_fence_held(c.import_pid, c.tenant, c.catalog) END AS import_held,
                   c.move_state, c.move_target, c.move_since, c.move_reason, c.move_by
              FROM stream_cursor c
              LEFT JOIN stream_retention r ON r.tenant = c.tenant AND r.catalog = c.catalog AND r.epoch = c.epoch
             WHERE c.tenant = ? AND c.catalog = ? AND c.fenced_at IS NULL
            """;

    private final JdbcClient jdbc;

    StreamDirectory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @param tenant  only this tenant's streams, or null for all
     * @param after   the last stream of the previous page, or null from the start
     * @param tenants the only tenants the caller may see; empty: all
     * @param rolledBackOnly only streams whose open epoch is marked rolled back
     * @return at most {@code limit} streams after {@code after}, in (tenant, catalog) order
     */
    List<StreamSummary> page(String tenant, StreamId after, Set<String> tenants, boolean rolledBackOnly, int limit) {
        return jdbc.sql(rolledBackOnly ? SQL_ROLLED_BACK_PAGE : SQL_PAGE).param("tenant", tenant)
                .param("afterTenant", after == null ? "" : after.tenant())
                .param("afterCatalog", after == null ? "" : after.catalog())
                .param("tenants", tenants.toArray(String[]::new))
                .param("limit", limit)
                .query((rs, n) -> {
                    Timestamp rolledBackAt = rs.getTimestamp("rolled_back_at");
                    return new StreamSummary(rs.getString("tenant"), rs.getString("catalog"), rs.getLong("epoch"),
                            rs.getLong("position"), rs.getString("chain_digest"), rs.getLong("pruned"), null,
                            rolledBackAt != null, rolledBackAt == null ? null : rolledBackAt.toInstant());
                })
                .list();
    }

    /** @return the stream's open cursor and its write blocks; empty when the stream has none */
    Optional<StreamStatus> one(StreamId s) {
        return jdbc.sql(SQL_ONE).params(s.tenant(), s.catalog()).query((rs, n) -> {
            StreamStatus.ImportFence fence = rs.getBoolean("import_held")
                    ? new StreamStatus.ImportFence(instant(rs, "import_since"), rs.getString("import_by"),
                            rs.getInt("import_pid"))
                    : null;
            StreamStatus.Move move = rs.getString("move_state") == null ? null
                    : new StreamStatus.Move(rs.getString("move_state"), rs.getString("move_target"),
                            instant(rs, "move_since"), rs.getString("move_reason"), rs.getString("move_by"));
            Instant rolledBackAt = instant(rs, "rolled_back_at");
            return new StreamStatus(rs.getString("tenant"), rs.getString("catalog"), rs.getLong("epoch"),
                    rs.getLong("position"), rs.getString("chain_digest"), rs.getLong("pruned"), null,
                    rolledBackAt != null, rolledBackAt, fence, move);
        }).optional();
    }

    private static Instant instant(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }
}
