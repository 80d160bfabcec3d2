package com.acme.catalog.product.rebuild;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code rebuild} rows: phase and progress of each rebuild. */
@Repository
class RebuildRepository {

    /** Adds the time since phase_started_at to the phase being left (phase_ms), then starts the new phase. */
    private static final String CLOSE_PHASE = """
            phase_ms = phase_ms || jsonb_build_object(phase, coalesce((phase_ms ->> phase)::bigint, 0)
                       + (extract(epoch FROM clock_timestamp() - phase_started_at) * 1000)::bigint),
            phase_started_at = clock_timestamp()""";
    private static final String SQL_INSERT = """
            INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, reason, projection_version)
            VALUES (?, ?, ?, 'LEASING', ?, ?)
            """;
    private static final String SQL_FIND = """
            SELECT rebuild_id, tenant, catalog, phase, attempt, generation_id, cursor, target, loaded_rows,
                   applied_events, error, updated_at
              FROM rebuild WHERE rebuild_id = ?
            """;
    private static final String SQL_LATEST = """
            SELECT rebuild_id, tenant, catalog, phase, attempt, generation_id, cursor, target, loaded_rows,
                   applied_events, error, updated_at
              FROM rebuild WHERE tenant = ? AND catalog = ? ORDER BY created_at DESC LIMIT 1
            """;
    /** Every stream's latest rebuild, in one statement (completeness refresh). */
    private static final String SQL_LATEST_OF_ALL = """
            SELECT DISTINCT ON (tenant, catalog) rebuild_id, tenant, catalog, phase, attempt, generation_id, cursor,
                   target, loaded_rows, applied_events, error, updated_at
              FROM rebuild ORDER BY tenant, catalog, created_at DESC
            """;
    private static final String SQL_ACTIVE = """
            SELECT rebuild_id FROM rebuild
             WHERE tenant = ? AND catalog = ? AND phase NOT IN ('DONE', 'FAILED', 'ABORTED')
            """;
    private static final BoundSql<PhaseChange> SET_PHASE = BoundSql.<PhaseChange>builder()
            .sql("UPDATE rebuild SET phase = ?, ", PhaseChange::phase).sql(CLOSE_PHASE)
            .sql(", updated_at = now() WHERE rebuild_id = ?", PhaseChange::id).build();
    private static final String SQL_STEPS = """
            UPDATE rebuild SET step_ms = step_ms || ?::jsonb, updated_at = now() WHERE rebuild_id = ?
            """;
    /** Per-phase milliseconds, the running phase's time so far included. */
    private static final String SQL_TIMINGS = """
            SELECT CASE WHEN phase IN ('DONE', 'FAILED', 'ABORTED') THEN phase_ms
                        ELSE phase_ms || jsonb_build_object(phase, coalesce((phase_ms ->> phase)::bigint, 0)
                             + (extract(epoch FROM clock_timestamp() - phase_started_at) * 1000)::bigint)
                   END::text,
                   step_ms::text
              FROM rebuild WHERE rebuild_id = ?
            """;
    /** The retry starts its budget at the first retried failure; next_retry_at is null when it starts at once. */
    private static final BoundSql<Restart> RESTART = BoundSql.<Restart>builder()
            .sql("""
                    UPDATE rebuild SET phase = 'LEASING', attempt = attempt + 1, lease_id = NULL, export_id = NULL,
                                       generation_id = NULL, cursor = 0, target = NULL, loaded_rows = 0,
                                       applied_events = 0, error = ?, error_code = ?, retry_code = ?,
                                       retry_reason = ?, retry_since = coalesce(retry_since, ?), next_retry_at = ?,
                                       updated_at = now(),
                    """, Restart::why, Restart::code, Restart::code, Restart::why, Restart::since, Restart::nextRetryAt)
            .sql(CLOSE_PHASE).sql(" WHERE rebuild_id = ?", Restart::id).build();
    private static final String SQL_RETRY = """
            SELECT error_code, retry_code, retry_reason, retry_since, next_retry_at FROM rebuild WHERE rebuild_id = ?
            """;
    private static final String SQL_TOUCH = "UPDATE rebuild SET updated_at = now() WHERE rebuild_id = ?";
    private static final String SQL_LEASE = "UPDATE rebuild SET lease_id = ?, updated_at = now() WHERE rebuild_id = ?";
    private static final String SQL_EXPORT = "UPDATE rebuild SET export_id = ?, updated_at = now() WHERE rebuild_id = ?";
    private static final String SQL_LOADED = """
            UPDATE rebuild SET generation_id = ?, loaded_rows = ?, cursor = ?, updated_at = now() WHERE rebuild_id = ?
            """;
    private static final String SQL_LOADED_ROWS = """
            UPDATE rebuild SET loaded_rows = ?, updated_at = now() WHERE rebuild_id = ?
            """;
    private static final String SQL_PROGRESS = """
            UPDATE rebuild SET cursor = ?, applied_events = applied_events + ?, updated_at = now() WHERE rebuild_id = ?
            """;
    private static final String SQL_TARGET = "UPDATE rebuild SET target = ?, updated_at = now() WHERE rebuild_id = ?";
    private static final BoundSql<Failure> FAIL = BoundSql.<Failure>builder()
            .sql("""
                    UPDATE rebuild SET phase = 'FAILED', error = ?, error_code = ?, next_retry_at = NULL,
                                       updated_at = now(),
                    """, Failure::error, Failure::code)
            .sql(CLOSE_PHASE).sql(" WHERE rebuild_id = ?", Failure::id).build();

    private static final String SQL_WORKER = """
            UPDATE rebuild SET worker_owner = ?, worker_fence = ?, next_retry_at = NULL, updated_at = now()
             WHERE rebuild_id = ?
            """;
    private static final String SQL_UNFINISHED = """
            SELECT rebuild_id, phase, attempt, lease_id, generation_id, projection_version FROM rebuild
             WHERE tenant = ? AND catalog = ? AND phase NOT IN ('DONE', 'FAILED', 'ABORTED')
            """;
    private static final String SQL_HANDOVER = """
            UPDATE rebuild SET error = ?, error_code = ?, next_retry_at = NULL, updated_at = now() WHERE rebuild_id = ?
            """;
    private static final String SQL_UNFINISHED_STREAMS = """
            SELECT DISTINCT tenant, catalog FROM rebuild WHERE phase NOT IN ('DONE', 'FAILED', 'ABORTED')
            UNION SELECT DISTINCT tenant, catalog FROM generation WHERE status = 'BUILDING'
            """;

    /** A rebuild left unfinished by a worker that lost its lease (or its process). */
    record Unfinished(UUID rebuildId, RebuildPhase phase, int attempt, String leaseId, Long generationId,
            int projectionVersion) {
    }

    /** Why a rebuild was started ({@code OPERATOR}, {@code RECOVERY}, {@code PROJECTION_UPGRADE}; null before V31) and
     * the projection version it builds with. */
    record Origin(String reason, int projectionVersion) {
    }

    private static final String SQL_ORIGIN = "SELECT reason, projection_version FROM rebuild WHERE rebuild_id = ?";
    private static final String SQL_CLAIM_VERSION = """
            UPDATE rebuild SET projection_version = ?, updated_at = now() WHERE rebuild_id = ?
            """;
    private static final String SQL_ACTIVE_VERSION = """
            SELECT coalesce(max(projection_version), 0) FROM rebuild
             WHERE tenant = ? AND catalog = ? AND phase NOT IN ('DONE', 'FAILED', 'ABORTED')
            """;

    Optional<Origin> origin(UUID id) {
        return jdbc.sql(SQL_ORIGIN).params(id)
                .query((rs, n) -> new Origin(rs.getString("reason"), rs.getInt("projection_version"))).optional();
    }

    /** The rebuild's next attempts build with {@code version} (the instance that took it over). */
    void claimVersion(UUID id, int version) {
        jdbc.sql(SQL_CLAIM_VERSION).params(version, id).update();
    }

    /** @return the newest projection version among the stream's unfinished rebuilds; empty without one */
    Optional<Integer> activeVersion(StreamId s) {
        int v = jdbc.sql(SQL_ACTIVE_VERSION).params(s.tenant(), s.catalog()).query(Integer.class).single();
        return v == 0 ? Optional.empty() : Optional.of(v);
    }

    private final JdbcClient jdbc;

    RebuildRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UUID id, StreamId s, String reason, int projectionVersion) {
        jdbc.sql(SQL_INSERT).params(id, s.tenant(), s.catalog(), reason, projectionVersion).update();
    }

    Optional<Rebuild> find(UUID id) {
        return jdbc.sql(SQL_FIND).params(id).query(RebuildRepository::rebuild).optional();
    }

    Optional<Rebuild> latest(StreamId s) {
        return jdbc.sql(SQL_LATEST).params(s.tenant(), s.catalog()).query(RebuildRepository::rebuild).optional();
    }

    List<Rebuild> latestOfAll() {
        return jdbc.sql(SQL_LATEST_OF_ALL).query(RebuildRepository::rebuild).list();
    }

    Optional<UUID> active(StreamId s) {
        return jdbc.sql(SQL_ACTIVE).params(s.tenant(), s.catalog()).query(UUID.class).optional();
    }

    void phase(UUID id, RebuildPhase phase) {
        jdbc.sql(SET_PHASE.sql()).params(SET_PHASE.params(new PhaseChange(id, phase.name()))).update();
    }

    private record PhaseChange(UUID id, String phase) {
    }

    /**
     * Starts the rebuild over from LEASING, its attempt counted, saying why ({@code code} and {@code CODE: sentence});
     * its retry budget counts from its first restart ({@code now} then).
     *
     * @param now         when it restarts; null for a restart that does not start the retry budget
     * @param nextRetryAt when the next attempt starts; null when at once
     */
    void restart(UUID id, String code, String why, java.time.Instant now, java.time.Instant nextRetryAt) {
        Restart r = new Restart(id, code, why, now == null ? null : java.sql.Timestamp.from(now),
                nextRetryAt == null ? null : java.sql.Timestamp.from(nextRetryAt));
        jdbc.sql(RESTART.sql()).params(RESTART.params(r)).update();
    }

    private record Restart(UUID id, String code, String why, java.sql.Timestamp since,
            java.sql.Timestamp nextRetryAt) {
    }

    /** Why a rebuild retries (or last retried), and when its next attempt starts. */
    record Retry(String errorCode, String retryCode, String retryReason, java.time.Instant retrySince,
            java.time.Instant nextRetryAt) {
    }

    Optional<Retry> retry(UUID id) {
        return jdbc.sql(SQL_RETRY).params(id).query((rs, n) -> new Retry(rs.getString(1), rs.getString(2),
                rs.getString(3), instant(rs, 4), instant(rs, 5))).optional();
    }

    private static java.time.Instant instant(ResultSet rs, int column) throws SQLException {
        java.sql.Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /** Marks the rebuild's row as alive (a rebuild waiting to retry). */
    void touch(UUID id) {
        jdbc.sql(SQL_TOUCH).params(id).update();
    }

    void lease(UUID id, String leaseId) {
        jdbc.sql(SQL_LEASE).params(leaseId, id).update();
    }

    void export(UUID id, String exportId) {
        jdbc.sql(SQL_EXPORT).params(exportId, id).update();
    }

    void loaded(UUID id, long generationId, long rows, long cursor) {
        jdbc.sql(SQL_LOADED).params(generationId, rows, cursor, id).update();
    }

    void loadedRows(UUID id, long rows) {
        jdbc.sql(SQL_LOADED_ROWS).params(rows, id).update();
    }

    void progress(UUID id, long cursor, long applied) {
        jdbc.sql(SQL_PROGRESS).params(cursor, applied, id).update();
    }

    void target(UUID id, long target) {
        jdbc.sql(SQL_TARGET).params(target, id).update();
    }

    /** Records step durations (milliseconds by step name), replacing earlier values of the same steps. */
    void steps(UUID id, Map<String, Long> millis) {
        StringBuilder json = new StringBuilder("{");
        millis.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":")
                .append(v));
        jdbc.sql(SQL_STEPS).params(json.append('}').toString(), id).update();
    }

    /** @return phase and step durations in milliseconds, as JSON objects; empty for an unknown rebuild */
    Optional<Timings> timings(UUID id) {
        return jdbc.sql(SQL_TIMINGS).params(id).query((rs, n) -> new Timings(rs.getString(1), rs.getString(2)))
                .optional();
    }

    /** Durations as the row holds them: JSON objects of milliseconds by phase name and by step name. */
    record Timings(String phaseMillisJson, String stepMillisJson) {
    }

    /** @param error {@code CODE: sentence}; {@code code} its code */
    void fail(UUID id, String code, String error) {
        jdbc.sql(FAIL.sql()).params(FAIL.params(new Failure(id, code, error))).update();
    }

    private record Failure(UUID id, String code, String error) {
    }

    /** Records the worker lease the rebuild now runs under. */
    void worker(UUID id, String owner, long fence) {
        jdbc.sql(SQL_WORKER).params(owner, fence, id).update();
    }

    java.util.List<Unfinished> unfinished(StreamId s) {
        return jdbc.sql(SQL_UNFINISHED).params(s.tenant(), s.catalog()).query((rs, n) -> {
            return new Unfinished(rs.getObject("rebuild_id", UUID.class), RebuildPhase.valueOf(rs.getString("phase")),
                    rs.getInt("attempt"), rs.getString("lease_id"), rs.getObject("generation_id", Long.class),
                    rs.getInt("projection_version"));
        }).list();
    }

    /** Keeps the rebuild unfinished for the next lease holder, saying why. */
    void handover(UUID id, String code, String why) {
        jdbc.sql(SQL_HANDOVER).params(why, code, id).update();
    }

    /** @return streams with an unfinished rebuild or a BUILDING generation: their next lease holder cleans up */
    java.util.List<StreamId> unfinishedStreams() {
        return jdbc.sql(SQL_UNFINISHED_STREAMS).query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2)))
                .list();
    }

    private static Rebuild rebuild(ResultSet rs, int row) throws SQLException {
        long g = rs.getLong("generation_id");
        Long generation = rs.wasNull() ? null : g;
        long t = rs.getLong("target");
        Long target = rs.wasNull() ? null : t;
        return new Rebuild(rs.getObject("rebuild_id", UUID.class),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")),
                RebuildPhase.valueOf(rs.getString("phase")), rs.getInt("attempt"), generation, rs.getLong("cursor"),
                target, rs.getLong("loaded_rows"), rs.getLong("applied_events"), rs.getString("error"),
                rs.getTimestamp("updated_at").toInstant());
    }
}
