package com.acme.catalog.product.completeness;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads what completeness is derived from: the serving generation's cursor and its held events, and the recovery
 * worker's lease; for one stream, or for every stream in one statement each (the periodic refresh).
 */
@Repository
class CompletenessRepository {

    private static final String SQL_SERVING = """
            SELECT g.generation_id, g.epoch, g.applied_position, g.chain_position, g.highest_seen_position,
                   g.updated_at, g.divergence, g.chain_digest, g.projection_version,
                   greatest((SELECT max(b.projection_version) FROM generation b WHERE b.tenant = s.tenant
                                AND b.catalog = s.catalog AND b.status = 'BUILDING'),
                            (SELECT max(r.projection_version) FROM rebuild r WHERE r.tenant = s.tenant
                                AND r.catalog = s.catalog AND r.phase NOT IN ('DONE', 'FAILED', 'ABORTED')))
                       AS building_version,
                   (SELECT count(*) FROM held_event h WHERE h.generation_id = g.generation_id
                       AND h.state = 'PARKED') AS parked,
                   (SELECT count(*) FROM held_event h WHERE h.generation_id = g.generation_id
                       AND h.state = 'PENDING') AS pending
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE s.tenant = ? AND s.catalog = ?
            """;
    /** Every serving generation with its held-event counts, in one statement (the refresh's read). */
    private static final String SQL_ALL_SERVING = """
            SELECT s.tenant, s.catalog, g.generation_id, g.epoch, g.applied_position, g.chain_position,
                   g.highest_seen_position, g.updated_at, g.divergence, g.chain_digest, g.projection_version,
                   greatest(b.building_version, r.building_version) AS building_version,
                   coalesce(h.parked, 0) AS parked, coalesce(h.pending, 0) AS pending
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
              LEFT JOIN (SELECT tenant, catalog, max(projection_version) AS building_version FROM generation
                          WHERE status = 'BUILDING' GROUP BY tenant, catalog) b
                     ON b.tenant = s.tenant AND b.catalog = s.catalog
              LEFT JOIN (SELECT tenant, catalog, max(projection_version) AS building_version FROM rebuild
                          WHERE phase NOT IN ('DONE', 'FAILED', 'ABORTED') GROUP BY tenant, catalog) r
                     ON r.tenant = s.tenant AND r.catalog = s.catalog
              LEFT JOIN (SELECT generation_id, count(*) FILTER (WHERE state = 'PARKED') AS parked,
                                count(*) FILTER (WHERE state = 'PENDING') AS pending
                           FROM held_event GROUP BY generation_id) h ON h.generation_id = g.generation_id
            """;
    private static final String SQL_ALL_WORKER_LEASES = """
            SELECT tenant, catalog, renewed_at, expires_at > clock_timestamp() AS valid FROM recovery_lease
            """;

    private static final String SQL_WORKER_LEASE = """
            SELECT renewed_at, expires_at > clock_timestamp() AS valid FROM recovery_lease
             WHERE tenant = ? AND catalog = ?
            """;

    /** The stream's recovery worker lease: its last renewal and whether it is unexpired. */
    record WorkerLease(Instant renewedAt, boolean valid) {
    }

    /**
     * The serving generation as completeness sees it; {@code divergence} null unless it diverged; the projection
     * version it was built with and the newest version the stream is being built with (its BUILDING generations'
     * and unfinished rebuilds'; null without one).
     */
    record Serving(long generationId, long epoch, long appliedPosition, long chainPosition, long highestSeen,
            Instant updatedAt, long parked, long pending, String divergence, String chainDigest, int projectionVersion,
            Integer buildingVersion) {

        /** A generation of version 1 with nothing building. */
        Serving(long generationId, long epoch, long appliedPosition, long chainPosition, long highestSeen,
                Instant updatedAt, long parked, long pending, String divergence, String chainDigest) {
            this(generationId, epoch, appliedPosition, chainPosition, highestSeen, updatedAt, parked, pending,
                    divergence, chainDigest, 1, null);
        }
    }

    private final JdbcClient jdbc;

    CompletenessRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Serving> serving(StreamId s) {
        return jdbc.sql(SQL_SERVING).params(s.tenant(), s.catalog()).query(CompletenessRepository::serving)
                .optional();
    }

    Optional<WorkerLease> workerLease(StreamId s) {
        return jdbc.sql(SQL_WORKER_LEASE).params(s.tenant(), s.catalog()).query(CompletenessRepository::lease)
                .optional();
    }

    /** Every stream's serving generation. */
    Map<StreamId, Serving> allServing() {
        Map<StreamId, Serving> out = new HashMap<>();
        jdbc.sql(SQL_ALL_SERVING).query(rs -> {
            out.put(stream(rs), serving(rs, 0));
        });
        return out;
    }

    /** Every stream's recovery worker lease. */
    Map<StreamId, WorkerLease> allWorkerLeases() {
        Map<StreamId, WorkerLease> out = new HashMap<>();
        jdbc.sql(SQL_ALL_WORKER_LEASES).query(rs -> {
            out.put(stream(rs), lease(rs, 0));
        });
        return out;
    }

    private static StreamId stream(ResultSet rs) throws SQLException {
        return new StreamId(rs.getString("tenant"), rs.getString("catalog"));
    }

    private static Serving serving(ResultSet rs, int row) throws SQLException {
        return new Serving(rs.getLong("generation_id"), rs.getLong("epoch"), rs.getLong("applied_position"),
                rs.getLong("chain_position"), rs.getLong("highest_seen_position"),
                rs.getTimestamp("updated_at").toInstant(), rs.getLong("parked"), rs.getLong("pending"),
                rs.getString("divergence"), rs.getString("chain_digest"), rs.getInt("projection_version"),
                (Integer) rs.getObject("building_version"));
    }

    private static WorkerLease lease(ResultSet rs, int row) throws SQLException {
        return new WorkerLease(rs.getTimestamp("renewed_at").toInstant(), rs.getBoolean("valid"));
    }
}
