package com.acme.catalog.product.recovery;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** {@code recovery_status}: what the lease holder's last recovery cycle of a stream found. */
@Repository
public class RecoveryStatusRepository {

    /** One stream's recovery status; {@code state} is OK, RETRYING or BLOCKED. */
    public record RecoveryStatus(String state, String reason, int failures, Long observedEpoch, Long observedBoundary,
            Instant verifiedAt, Instant nextAttemptAt, Instant updatedAt) {
    }

    private static final String SQL_OK = """
            INSERT INTO recovery_status AS s (tenant, catalog, state, reason, failures, observed_epoch,
                                              observed_boundary, verified_at, next_attempt_at, updated_at)
            VALUES (?, ?, 'OK', NULL, 0, ?, ?, CASE WHEN ? THEN now() END, NULL, now())
            ON CONFLICT (tenant, catalog) DO UPDATE
               SET state = 'OK', reason = NULL, failures = 0,
                   observed_epoch = coalesce(excluded.observed_epoch, s.observed_epoch),
                   observed_boundary = coalesce(excluded.observed_boundary, s.observed_boundary),
                   verified_at = coalesce(excluded.verified_at, s.verified_at), next_attempt_at = NULL,
                   updated_at = now()
            """;
    private static final String SQL_TROUBLE = """
            INSERT INTO recovery_status AS s (tenant, catalog, state, reason, failures, next_attempt_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, now())
            ON CONFLICT (tenant, catalog) DO UPDATE
               SET state = excluded.state, reason = excluded.reason, failures = excluded.failures,
                   next_attempt_at = excluded.next_attempt_at, updated_at = now()
            """;
    private static final String SQL_FIND = """
            SELECT state, reason, failures, observed_epoch, observed_boundary, verified_at, next_attempt_at,
                   updated_at
              FROM recovery_status WHERE tenant = ? AND catalog = ?
            """;

    private static final String SQL_ALL = """
            SELECT tenant, catalog, state, reason, failures, observed_epoch, observed_boundary, verified_at,
                   next_attempt_at, updated_at
              FROM recovery_status
            """;

    private final JdbcClient jdbc;

    RecoveryStatusRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** A cycle succeeded; {@code verified} when the serving generation reached the observed boundary. */
    void ok(StreamId s, Long epoch, Long boundary, boolean verified) {
        jdbc.sql(SQL_OK).params(s.tenant(), s.catalog(), epoch, boundary, verified).update();
    }

    void trouble(StreamId s, String state, String reason, int failures, Instant nextAttempt) {
        jdbc.sql(SQL_TROUBLE).params(s.tenant(), s.catalog(), state, reason, failures,
                nextAttempt == null ? null : Timestamp.from(nextAttempt)).update();
    }

    public Optional<RecoveryStatus> find(StreamId s) {
        return jdbc.sql(SQL_FIND).params(s.tenant(), s.catalog()).query(RecoveryStatusRepository::status).optional();
    }

    /** @return every stream's status, in one statement (completeness refresh) */
    public Map<StreamId, RecoveryStatus> all() {
        Map<StreamId, RecoveryStatus> out = new HashMap<>();
        jdbc.sql(SQL_ALL).query(rs -> {
            out.put(new StreamId(rs.getString("tenant"), rs.getString("catalog")), status(rs, 0));
        });
        return out;
    }

    private static RecoveryStatus status(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        long e = rs.getLong("observed_epoch");
        Long epoch = rs.wasNull() ? null : e;
        long b = rs.getLong("observed_boundary");
        Long boundary = rs.wasNull() ? null : b;
        return new RecoveryStatus(rs.getString("state"), rs.getString("reason"), rs.getInt("failures"), epoch,
                boundary, instant(rs.getTimestamp("verified_at")), instant(rs.getTimestamp("next_attempt_at")),
                instant(rs.getTimestamp("updated_at")));
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
