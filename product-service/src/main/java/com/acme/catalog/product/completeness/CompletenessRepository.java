package com.acme.catalog.product.completeness;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads what completeness is derived from: the serving generation's cursor and its held events. */
@Repository
class CompletenessRepository {

    private static final String SQL_SERVING = """
            SELECT g.generation_id, g.epoch, g.applied_position, g.chain_position, g.highest_seen_position,
                   g.updated_at, g.divergence,
                   (SELECT count(*) FROM held_event h WHERE h.generation_id = g.generation_id
                       AND h.state = 'PARKED') AS parked,
                   (SELECT count(*) FROM held_event h WHERE h.generation_id = g.generation_id
                       AND h.state = 'PENDING') AS pending
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE s.tenant = ? AND s.catalog = ?
            """;
    private static final String SQL_STREAMS = """
            SELECT tenant, catalog FROM serving_generation
            UNION SELECT tenant, catalog FROM rebuild
            """;

    private static final String SQL_WORKER_LEASE = """
            SELECT renewed_at, expires_at > clock_timestamp() AS valid FROM recovery_lease
             WHERE tenant = ? AND catalog = ?
            """;

    /** The stream's recovery worker lease: its last renewal and whether it is unexpired. */
    record WorkerLease(Instant renewedAt, boolean valid) {
    }

    /** The serving generation as completeness sees it; {@code divergence} null unless it diverged. */
    record Serving(long generationId, long epoch, long appliedPosition, long chainPosition, long highestSeen,
            Instant updatedAt, long parked, long pending, String divergence) {
    }

    private final JdbcClient jdbc;

    CompletenessRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Serving> serving(StreamId s) {
        return jdbc.sql(SQL_SERVING).params(s.tenant(), s.catalog()).query((rs, n) -> new Serving(
                rs.getLong("generation_id"), rs.getLong("epoch"), rs.getLong("applied_position"),
                rs.getLong("chain_position"), rs.getLong("highest_seen_position"),
                rs.getTimestamp("updated_at").toInstant(), rs.getLong("parked"), rs.getLong("pending"),
                rs.getString("divergence"))).optional();
    }

    Optional<WorkerLease> workerLease(StreamId s) {
        return jdbc.sql(SQL_WORKER_LEASE).params(s.tenant(), s.catalog()).query((rs, n) -> new WorkerLease(
                rs.getTimestamp("renewed_at").toInstant(), rs.getBoolean("valid"))).optional();
    }

    List<StreamId> streams() {
        return jdbc.sql(SQL_STREAMS).query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list();
    }
}
