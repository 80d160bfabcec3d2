package com.acme.catalog.product.completeness;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.recovery.RecoveryStatusRepository.RecoveryStatus;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads what completeness is derived from: the serving generation's cursor and its held events, and the recovery
 * worker's lease and last finding; for one stream, or for every stream in one statement (the fleet view and the
 * periodic refresh).
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
    /**
     * Every stream the product holds (a serving generation, a rebuild, a recovery status or a learnt epoch) with
     * what its completeness is derived from but its rebuild: the serving generation and its held-event counts, the
     * recovery worker's lease and last finding; one row per stream, in one statement (the fleet view's and the
     * refresh's read; the latest rebuilds are the other).
     */
    private static final String SQL_FLEET = """
            WITH stream AS (
                SELECT tenant, catalog FROM serving_generation
                 UNION SELECT tenant, catalog FROM rebuild
                 UNION SELECT tenant, catalog FROM recovery_status
                 UNION SELECT tenant, catalog FROM stream_epoch)
            SELECT k.tenant, k.catalog, g.generation_id, g.epoch, g.applied_position, g.chain_position,
                   g.highest_seen_position, g.updated_at, g.divergence, g.chain_digest, g.projection_version,
                   greatest(b.building_version, r.building_version) AS building_version,
                   coalesce(h.parked, 0) AS parked, coalesce(h.pending, 0) AS pending,
                   l.renewed_at AS lease_renewed_at, l.expires_at > clock_timestamp() AS lease_valid,
                   w.state AS worker_state, w.reason AS worker_reason, w.failures AS worker_failures,
                   w.observed_epoch, w.observed_boundary, w.verified_at, w.next_attempt_at,
                   w.updated_at AS worker_updated_at
              FROM stream k
              LEFT JOIN serving_generation s ON s.tenant = k.tenant AND s.catalog = k.catalog
              LEFT JOIN generation g ON g.generation_id = s.generation_id
              LEFT JOIN (SELECT tenant, catalog, max(projection_version) AS building_version FROM generation
                          WHERE status = 'BUILDING' GROUP BY tenant, catalog) b
                     ON b.tenant = k.tenant AND b.catalog = k.catalog
              LEFT JOIN (SELECT tenant, catalog, max(projection_version) AS building_version FROM rebuild
                          WHERE phase NOT IN ('DONE', 'FAILED', 'ABORTED') GROUP BY tenant, catalog) r
                     ON r.tenant = k.tenant AND r.catalog = k.catalog
              LEFT JOIN (SELECT generation_id, count(*) FILTER (WHERE state = 'PARKED') AS parked,
                                count(*) FILTER (WHERE state = 'PENDING') AS pending
                           FROM held_event GROUP BY generation_id) h ON h.generation_id = g.generation_id
              LEFT JOIN recovery_lease l ON l.tenant = k.tenant AND l.catalog = k.catalog
              LEFT JOIN recovery_status w ON w.tenant = k.tenant AND w.catalog = k.catalog
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

    /**
     * What one stream's completeness is derived from, as {@link #fleet} reads it; each part empty where the stream
     * has none.
     */
    record StreamInputs(StreamId stream, Optional<Serving> serving, Optional<WorkerLease> lease,
            Optional<RecoveryStatus> worker) {
    }

    /** @return every stream the product holds with its inputs, in one statement, in no particular order */
    List<StreamInputs> fleet() {
        return jdbc.sql(SQL_FLEET).query(CompletenessRepository::inputs).list();
    }

    private static StreamInputs inputs(ResultSet rs, int row) throws SQLException {
        rs.getLong("generation_id");
        Optional<Serving> serving = rs.wasNull() ? Optional.empty() : Optional.of(serving(rs, row));
        Timestamp renewed = rs.getTimestamp("lease_renewed_at");
        Optional<WorkerLease> lease = renewed == null ? Optional.empty()
                : Optional.of(new WorkerLease(renewed.toInstant(), rs.getBoolean("lease_valid")));
        String state = rs.getString("worker_state");
        Optional<RecoveryStatus> worker = state == null ? Optional.empty()
                : Optional.of(new RecoveryStatus(state, rs.getString("worker_reason"), rs.getInt("worker_failures"),
                        nullableLong(rs, "observed_epoch"), nullableLong(rs, "observed_boundary"),
                        instant(rs.getTimestamp("verified_at")), instant(rs.getTimestamp("next_attempt_at")),
                        instant(rs.getTimestamp("worker_updated_at"))));
        return new StreamInputs(stream(rs), serving, lease, worker);
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
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
