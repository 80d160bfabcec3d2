package com.acme.catalog.resolver.epoch;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.RotationFailure;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.resolver.epoch.StreamRotator.Failure;
import com.acme.catalog.resolver.epoch.StreamRotator.Outcome;
import com.acme.catalog.resolver.epoch.StreamRotator.Rotated;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Fleet rotation jobs in the resolver's database ({@code epoch_rotation}, one row per stream of its scope in
 * {@code epoch_rotation_stream}). A job is driven by the instance that holds its claim (owner + expiry on database
 * time); each batch locks the pending stream rows it rotates, so even two drivers never rotate one stream twice, and
 * renews the claim as the last statement of its transaction, so a driver whose claim was taken commits nothing.
 */
@Repository
class RotationJobRepository {

    private static final String JOB_COLUMNS = """
            rotation_id, reason, scope::text AS scope, scope_key, requested_by, status, streams,
            rotated, failed, error, started_at, finished_at,
            extract(epoch FROM coalesce(finished_at, clock_timestamp()) - started_at) AS seconds
            """;
    private static final String SQL_JOB = "SELECT " + JOB_COLUMNS + " FROM epoch_rotation WHERE rotation_id = ?";
    private static final String SQL_RUNNING = "SELECT " + JOB_COLUMNS + " FROM epoch_rotation WHERE status = 'RUNNING'";
    /** The job a key answered, and the fingerprint of the request it came with. */
    private static final String SQL_BY_KEY = """
            SELECT k.rotation_id, k.request_sha256 FROM epoch_rotation_key k
             WHERE k.requested_by = ? AND k.idempotency_key = ?
            """;
    private static final String SQL_REMEMBER_KEY = """
            INSERT INTO epoch_rotation_key (requested_by, idempotency_key, request_sha256, rotation_id)
            VALUES (?, ?, ?, ?)
            """;
    private static final String SQL_CREATE = """
            INSERT INTO epoch_rotation (rotation_id, reason, scope, scope_key, requested_by, status, streams)
            VALUES (?, ?, CAST(? AS jsonb), ?, ?, 'RUNNING', 0)
            """;
    private static final UnnestColumns<StreamId> STREAM_COLUMNS = UnnestColumns.of(StreamId.class)
            .text("tenant", StreamId::tenant)
            .text("catalog", StreamId::catalog);
    /**
     * The scope's streams: every open cursor of the database (of one tenant, or all) and every stream the control
     * store knows (a stream the restore lost entirely), or the streams named. Parameters: job, tenant (null: all),
     * tenant, the extra streams.
     */
    private static final BoundSql<Scoped> ADD_STREAMS = BoundSql.<Scoped>builder()
            .sql("""
                    WITH added AS (
                        INSERT INTO epoch_rotation_stream (rotation_id, tenant, catalog)
                        SELECT ?, tenant, catalog
                          FROM (SELECT tenant, catalog FROM stream_cursor
                                 WHERE fenced_at IS NULL AND ? AND (CAST(? AS text) IS NULL OR tenant = ?)
                                UNION
                                SELECT u.tenant, u.catalog FROM\s""", Scoped::rotationId, Scoped::fromDatabase,
                    Scoped::tenant, Scoped::tenant)
            .unnest(Scoped::streams, STREAM_COLUMNS)
            .sql("""
                    ) scope
                        RETURNING 1
                    )
                    UPDATE epoch_rotation SET streams = (SELECT count(*) FROM added) WHERE rotation_id = ?
                    """, Scoped::rotationId)
            .build();
    /** Claims a running job that nobody holds (or whose claim expired, or that this owner holds). */
    private static final String SQL_CLAIM = """
            UPDATE epoch_rotation SET claimed_by = ?, claim_until = clock_timestamp() + CAST(? AS interval)
             WHERE rotation_id = ? AND status = 'RUNNING'
               AND (claimed_by IS NULL OR claimed_by = ? OR claim_until < clock_timestamp())
            """;
    /** The next pending streams of the job, locked; those another batch holds are skipped. */
    private static final String SQL_LOCK_PENDING = """
            SELECT tenant, catalog FROM epoch_rotation_stream
             WHERE rotation_id = ? AND outcome IS NULL
             ORDER BY tenant, catalog
             LIMIT ?
               FOR UPDATE SKIP LOCKED
            """;
    private static final String SQL_PENDING = """
            SELECT count(*) FROM epoch_rotation_stream WHERE rotation_id = ? AND outcome IS NULL
            """;
    private static final UnnestColumns<Rotated> ROTATED_COLUMNS = UnnestColumns.of(Rotated.class)
            .text("tenant", r -> r.stream().tenant())
            .text("catalog", r -> r.stream().catalog())
            .bigints("epoch", Rotated::epoch)
            .nullableBigints("from_epoch", r -> r.startsFrom() == null ? null : r.startsFrom().epoch())
            .nullableBigints("from_position", r -> r.startsFrom() == null ? null : r.startsFrom().position())
            .text("from_digest", r -> r.startsFrom() == null ? null : r.startsFrom().chainDigest());
    private static final BoundSql<Marked<Rotated>> MARK_ROTATED = BoundSql.<Marked<Rotated>>builder()
            .sql("""
                    UPDATE epoch_rotation_stream s
                       SET outcome = 'ROTATED', epoch = u.epoch, starts_from_epoch = u.from_epoch,
                           starts_from_position = u.from_position, starts_from_digest = u.from_digest,
                           finished_at = clock_timestamp()
                      FROM\s""").unnest(Marked::rows, ROTATED_COLUMNS).sql("""

                     WHERE s.rotation_id = ? AND s.tenant = u.tenant AND s.catalog = u.catalog AND s.outcome IS NULL
                    """, Marked::rotationId)
            .build();
    private static final UnnestColumns<Failure> FAILED_COLUMNS = UnnestColumns.of(Failure.class)
            .text("tenant", f -> f.stream().tenant())
            .text("catalog", f -> f.stream().catalog())
            .text("error", f -> f.code().name() + ": " + f.message());
    private static final BoundSql<Marked<Failure>> MARK_FAILED = BoundSql.<Marked<Failure>>builder()
            .sql("""
                    UPDATE epoch_rotation_stream s SET outcome = 'FAILED', error = u.error, finished_at = clock_timestamp()
                      FROM\s""").unnest(Marked::rows, FAILED_COLUMNS).sql("""

                     WHERE s.rotation_id = ? AND s.tenant = u.tenant AND s.catalog = u.catalog AND s.outcome IS NULL
                    """, Marked::rotationId)
            .build();
    /** Counts a batch and renews the claim: the batch's last statement, its fence. */
    private static final String SQL_ADVANCE = """
            UPDATE epoch_rotation
               SET rotated = rotated + ?, failed = failed + ?, claim_until = clock_timestamp() + CAST(? AS interval)
             WHERE rotation_id = ? AND status = 'RUNNING' AND claimed_by = ? AND claim_until > clock_timestamp()
            """;
    private static final String SQL_FINISH = """
            UPDATE epoch_rotation
               SET status = CASE WHEN failed > 0 THEN 'FAILED' ELSE 'DONE' END, finished_at = clock_timestamp(),
                   claimed_by = NULL, claim_until = NULL
             WHERE rotation_id = ? AND status = 'RUNNING' AND claimed_by = ?
               AND NOT EXISTS (SELECT 1 FROM epoch_rotation_stream WHERE rotation_id = ? AND outcome IS NULL)
            RETURNING status
            """;
    /** Ends the running job with streams left (maintenance turned off with force). */
    private static final String SQL_STOP = """
            UPDATE epoch_rotation
               SET status = 'FAILED', error = ?, finished_at = clock_timestamp(), claimed_by = NULL, claim_until = NULL
             WHERE status = 'RUNNING'
            RETURNING rotation_id
            """;
    private static final String SQL_FAILURES = """
            SELECT tenant, catalog, error FROM epoch_rotation_stream
             WHERE rotation_id = ? AND outcome = 'FAILED'
             ORDER BY tenant, catalog
             LIMIT ?
            """;
    /** Whether a running job has the stream still to rotate (a single rotation or reset must wait for it). */
    private static final String SQL_RUNNING_WITH = """
            SELECT r.rotation_id FROM epoch_rotation_stream s
              JOIN epoch_rotation r ON r.rotation_id = s.rotation_id AND r.status = 'RUNNING'
             WHERE s.tenant = ? AND s.catalog = ? AND s.outcome IS NULL
             LIMIT 1
            """;

    private final JdbcClient jdbc;

    RotationJobRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Job> job(UUID rotationId) {
        return jdbc.sql(SQL_JOB).params(rotationId).query(RotationJobRepository::job).optional();
    }

    /** @return the running job, if any (there is at most one) */
    Optional<Job> running() {
        return jdbc.sql(SQL_RUNNING).query(RotationJobRepository::job).optional();
    }

    /** @return the job the key answered before, with the fingerprint of the request it came with */
    Optional<Keyed> byKey(String identity, String idempotencyKey) {
        return jdbc.sql(SQL_BY_KEY).params(identity, idempotencyKey)
                .query((rs, n) -> new Keyed(rs.getObject(1, UUID.class), rs.getString(2))).optional();
    }

    /**
     * Remembers that the key answered the job, in the caller's transaction.
     *
     * @throws org.springframework.dao.DuplicateKeyException when the key answered a job already
     */
    void rememberKey(String identity, String idempotencyKey, String requestSha256, UUID rotationId) {
        jdbc.sql(SQL_REMEMBER_KEY).params(identity, idempotencyKey, requestSha256, rotationId).update();
    }

    /**
     * Creates a running job and its stream rows, in the caller's transaction.
     *
     * @param tenant         the scope's tenant; null for every stream (with {@code fromDatabase}) or a list
     * @param fromDatabase   whether the database's open cursors (of {@code tenant}, or all) belong to the scope
     * @param streams        streams the scope holds besides (the control store's, or the list)
     * @throws org.springframework.dao.DuplicateKeyException when a job runs already
     */
    void create(UUID rotationId, String reason, String scopeJson, String scopeKey, String requestedBy,
            String tenant, boolean fromDatabase, List<StreamId> streams) {
        jdbc.sql(SQL_CREATE).params(rotationId, reason, scopeJson, scopeKey, requestedBy).update();
        Scoped scoped = new Scoped(rotationId, fromDatabase, tenant, streams);
        jdbc.sql(ADD_STREAMS.sql()).params(ADD_STREAMS.params(scoped)).update();
    }

    /** @return whether {@code owner} now holds the job's claim for {@code ttl} */
    boolean claim(UUID rotationId, String owner, Duration ttl) {
        return jdbc.sql(SQL_CLAIM).params(owner, interval(ttl), rotationId, owner).update() == 1;
    }

    /** Locks up to {@code limit} pending streams of the job until the transaction ends, in (tenant, catalog) order. */
    List<StreamId> lockPending(UUID rotationId, int limit) {
        return jdbc.sql(SQL_LOCK_PENDING).params(rotationId, limit)
                .query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list();
    }

    long pending(UUID rotationId) {
        return jdbc.sql(SQL_PENDING).params(rotationId).query(Long.class).single();
    }

    /**
     * Records a batch's outcome on its stream rows and counts it, renewing {@code owner}'s claim; the last statement
     * of the batch's transaction.
     *
     * @return false when {@code owner} no longer holds the claim (the caller rolls back)
     */
    boolean record(UUID rotationId, Outcome outcome, String owner, Duration ttl) {
        if (!outcome.rotated().isEmpty()) {
            Marked<Rotated> m = new Marked<>(rotationId, outcome.rotated());
            jdbc.sql(MARK_ROTATED.sql()).params(MARK_ROTATED.params(m)).update();
        }
        return recordFailures(rotationId, outcome.failures(), outcome.rotated().size(), owner, ttl);
    }

    /** Records failed streams and counts them (and {@code rotated} more), renewing the claim; false when lost. */
    boolean recordFailures(UUID rotationId, List<Failure> failures, int rotated, String owner, Duration ttl) {
        if (!failures.isEmpty()) {
            Marked<Failure> m = new Marked<>(rotationId, failures);
            jdbc.sql(MARK_FAILED.sql()).params(MARK_FAILED.params(m)).update();
        }
        return jdbc.sql(SQL_ADVANCE).params(rotated, failures.size(), interval(ttl), rotationId, owner).update() == 1;
    }

    /** Ends the job once no stream is pending: DONE, or FAILED when any failed. Empty while streams are pending. */
    Optional<String> finish(UUID rotationId, String owner) {
        return jdbc.sql(SQL_FINISH).params(rotationId, owner, rotationId).query(String.class).optional();
    }

    /** Ends the running job, if any, with {@code error}; in the caller's transaction. */
    Optional<UUID> stopRunning(String error) {
        return jdbc.sql(SQL_STOP).params(error).query((rs, n) -> rs.getObject(1, UUID.class)).optional();
    }

    List<RotationFailure> failures(UUID rotationId, int limit) {
        return jdbc.sql(SQL_FAILURES).params(rotationId, limit)
                .query((rs, n) -> new RotationFailure(rs.getString(1), rs.getString(2), rs.getString(3))).list();
    }

    /** @return the running job that has {@code s} still to rotate, if any */
    Optional<UUID> runningWith(StreamId s) {
        return jdbc.sql(SQL_RUNNING_WITH).params(s.tenant(), s.catalog())
                .query((rs, n) -> rs.getObject(1, UUID.class)).optional();
    }

    private static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }

    private static Job job(ResultSet rs, int n) throws SQLException {
        Timestamp finished = rs.getTimestamp("finished_at");
        return new Job(rs.getObject("rotation_id", UUID.class), rs.getString("reason"), rs.getString("scope"),
                rs.getString("scope_key"), rs.getString("requested_by"), rs.getString("status"), rs.getLong("streams"), rs.getLong("rotated"), rs.getLong("failed"),
                rs.getString("error"), rs.getTimestamp("started_at").toInstant(),
                finished == null ? null : finished.toInstant(), rs.getDouble("seconds"));
    }

    /**
     * A job as stored.
     *
     * @param seconds how long it ran (until now while running), on database time
     */
    record Job(UUID rotationId, String reason, String scopeJson, String scopeKey, String requestedBy,
            String status, long streams, long rotated, long failed, String error,
            Instant startedAt, Instant finishedAt, double seconds) {

        boolean isRunning() {
            return "RUNNING".equals(status);
        }
    }

    /** The job a key answered and the fingerprint of its request. */
    record Keyed(UUID rotationId, String requestSha256) {
    }

    private record Scoped(UUID rotationId, boolean fromDatabase, String tenant, List<StreamId> streams) {
    }

    private record Marked<R>(UUID rotationId, List<R> rows) {
    }
}
