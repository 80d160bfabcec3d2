package com.acme.catalog.resolver.epoch;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.UnnestColumns;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A rotation's statements in the resolver's own database, for a batch of streams at once (one stream is a batch of
 * one), run in one transaction: lock the open cursors, fence them, open the next epochs' cursors at position 0 (chain
 * digest d0), close what belonged to the fenced epochs, and for a reset remove the streams' accepted state. Outbox
 * rows are never touched: they keep their epoch and age out.
 */
@Repository
class RotationRepository {

    private static final UnnestColumns<StreamId> STREAM_COLUMNS = UnnestColumns.of(StreamId.class)
            .text("tenant", StreamId::tenant)
            .text("catalog", StreamId::catalog);
    private static final UnnestColumns<Opened> OPENED_COLUMNS = UnnestColumns.of(Opened.class)
            .text("tenant", o -> o.stream().tenant())
            .text("catalog", o -> o.stream().catalog())
            .bigints("epoch", Opened::epoch);

    /** The open cursors of the streams, locked in (tenant, catalog) order so two batches never deadlock. */
    private static final BoundSql<Collection<StreamId>> LOCK_OPEN = BoundSql.<Collection<StreamId>>builder()
            .sql("""
                    SELECT c.tenant, c.catalog, c.epoch, c.position, c.chain_digest
                      FROM stream_cursor c
                      JOIN\s""").unnest(s -> s, STREAM_COLUMNS).sql("""
                     ON c.tenant = u.tenant AND c.catalog = u.catalog
                     WHERE c.fenced_at IS NULL
                     ORDER BY c.tenant, c.catalog
                       FOR UPDATE OF c
                    """).build();
    /** The highest epoch of each stream's cursors, open or fenced; streams without any are absent. */
    private static final BoundSql<Collection<StreamId>> NEWEST_EPOCHS = BoundSql.<Collection<StreamId>>builder()
            .sql("""
                    SELECT c.tenant, c.catalog, max(c.epoch) AS epoch
                      FROM stream_cursor c
                      JOIN\s""").unnest(s -> s, STREAM_COLUMNS).sql("""
                     ON c.tenant = u.tenant AND c.catalog = u.catalog
                     GROUP BY c.tenant, c.catalog
                    """).build();
    /** The streams whose accepted revisions review decisions cite (immutable: such a stream cannot be reset). */
    private static final BoundSql<Collection<StreamId>> WITH_DECISIONS = BoundSql.<Collection<StreamId>>builder()
            .sql("SELECT u.tenant, u.catalog FROM ").unnest(s -> s, STREAM_COLUMNS).sql("""

                     WHERE EXISTS (SELECT 1 FROM decision_revision d
                                    WHERE d.tenant = u.tenant AND d.catalog = u.catalog)
                    """).build();
    /** Fences whatever cursor is open (a concurrent rotation's, committed while this one waited, included). */
    private static final BoundSql<Collection<Opened>> FENCE = BoundSql.<Collection<Opened>>builder()
            .sql("UPDATE stream_cursor c SET fenced_at = clock_timestamp(), updated_at = now()\n  FROM ")
            .unnest(o -> o, OPENED_COLUMNS).sql("""

                     WHERE c.tenant = u.tenant AND c.catalog = u.catalog AND c.fenced_at IS NULL
                    """).build();
    private static final BoundSql<Collection<Opened>> OPEN = BoundSql.<Collection<Opened>>builder()
            .sql("INSERT INTO stream_cursor (tenant, catalog, epoch)\nSELECT u.tenant, u.catalog, u.epoch FROM ")
            .unnest(o -> o, OPENED_COLUMNS).build();
    /** Leases pin epochs that no longer exist for writers: released, so no export of them can turn READY. */
    private static final BoundSql<Collection<Opened>> RELEASE_LEASES = BoundSql.<Collection<Opened>>builder()
            .sql("UPDATE retention_lease l SET released_at = clock_timestamp()\n  FROM ")
            .unnest(o -> o, OPENED_COLUMNS).sql("""

                     WHERE l.tenant = u.tenant AND l.catalog = u.catalog AND l.epoch < u.epoch
                       AND l.released_at IS NULL
                    """).build();
    /** Delivery claims of the fenced epochs: nobody delivers them again, so nobody needs to hold them. */
    private static final BoundSql<Collection<Opened>> DROP_CLAIMS = BoundSql.<Collection<Opened>>builder()
            .sql("UPDATE relay_delivery d SET claimed_by = NULL, claim_until = NULL\n  FROM ")
            .unnest(o -> o, OPENED_COLUMNS).sql("""

                     WHERE d.tenant = u.tenant AND d.catalog = u.catalog AND d.epoch < u.epoch
                       AND d.claimed_by IS NOT NULL
                    """).build();
    /**
     * A reset's removal of the streams' accepted state, current rows and revision history (one statement; the
     * revisions last, after the rows that name them).
     */
    private static final BoundSql<Collection<StreamId>> REMOVE_STATE = BoundSql.<Collection<StreamId>>builder()
            .sql("WITH s AS (SELECT * FROM ").unnest(s -> s, STREAM_COLUMNS).sql("""
                    ),
                    items AS (DELETE FROM item t USING s WHERE t.tenant = s.tenant AND t.catalog = s.catalog),
                    mappings AS (DELETE FROM mapping t USING s WHERE t.tenant = s.tenant AND t.catalog = s.catalog),
                    policies AS (DELETE FROM policy t USING s WHERE t.tenant = s.tenant AND t.catalog = s.catalog),
                    releases AS (DELETE FROM release t USING s WHERE t.tenant = s.tenant AND t.catalog = s.catalog)
                    DELETE FROM accepted_revision t USING s WHERE t.tenant = s.tenant AND t.catalog = s.catalog
                    """).build();

    private final JdbcClient jdbc;

    RotationRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Locks the open cursor rows of the streams until the transaction ends.
     *
     * @return each locked cursor; a stream with no open cursor is absent
     */
    Map<StreamId, OpenCursor> lockOpen(Collection<StreamId> streams) {
        Map<StreamId, OpenCursor> out = new HashMap<>();
        jdbc.sql(LOCK_OPEN.sql()).params(LOCK_OPEN.params(streams)).query((rs, n) -> new OpenCursor(
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"),
                rs.getLong("position"), rs.getString("chain_digest"))).list().forEach(c -> out.put(c.stream(), c));
        return out;
    }

    /** @return the highest epoch the database has a cursor of, open or fenced, per stream; absent for none */
    Map<StreamId, Long> newestEpochs(Collection<StreamId> streams) {
        Map<StreamId, Long> out = new HashMap<>();
        jdbc.sql(NEWEST_EPOCHS.sql()).params(NEWEST_EPOCHS.params(streams)).query((rs, n) -> {
            out.put(new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"));
            return null;
        }).list();
        return out;
    }

    /** @return those of the streams whose accepted revisions review decisions cite */
    Set<StreamId> withDecisions(Collection<StreamId> streams) {
        return Set.copyOf(jdbc.sql(WITH_DECISIONS.sql()).params(WITH_DECISIONS.params(streams))
                .query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list());
    }

    /**
     * Fences each stream's open cursor, opens its new epoch at position 0, drops the older epochs' delivery claims
     * and releases their live leases.
     *
     * @return how many leases were released
     */
    int fenceAndOpen(List<Opened> opened) {
        if (opened.isEmpty()) {
            return 0;
        }
        jdbc.sql(FENCE.sql()).params(FENCE.params(opened)).update();
        jdbc.sql(OPEN.sql()).params(OPEN.params(opened)).update();
        jdbc.sql(DROP_CLAIMS.sql()).params(DROP_CLAIMS.params(opened)).update();
        return jdbc.sql(RELEASE_LEASES.sql()).params(RELEASE_LEASES.params(opened)).update();
    }

    /** Removes every item, mapping, policy, release and accepted revision of the streams. */
    void removeState(Collection<StreamId> streams) {
        if (!streams.isEmpty()) {
            jdbc.sql(REMOVE_STATE.sql()).params(REMOVE_STATE.params(streams)).update();
        }
    }

    /** The open cursor as locked: its epoch, position and the chain digest at the position. */
    record OpenCursor(StreamId stream, long epoch, long position, String chainDigest) {
    }

    /** A stream's new epoch, opened at position 0. */
    record Opened(StreamId stream, long epoch) {
    }
}
