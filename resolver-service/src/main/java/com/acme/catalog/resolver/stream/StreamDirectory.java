package com.acme.catalog.resolver.stream;

import java.sql.Timestamp;
import java.util.List;
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
}
