package com.acme.catalog.resolver.export;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportStatus;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Export rows ({@code snapshot_export}). Every state change is a compare-and-set on {@code status = 'RUNNING'},
 * so a run that a sweeper already failed cannot turn READY afterwards, whichever instance runs it.
 */
@Repository
class ExportRepository {

    private static final String SQL_INSERT = """
            INSERT INTO snapshot_export (export_id, tenant, catalog, lease_id, epoch, status, object_prefix,
                                         requested_by, instance)
            VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?)
            """;
    private static final String SQL_FIND = """
            SELECT export_id, tenant, catalog, lease_id, epoch, status, cursor, chain_digest, object_prefix,
                   manifest_key, error, phase, rows_written, bytes_written, requested_by, created_at, heartbeat_at,
                   finished_at, retired_at, permanent
              FROM snapshot_export WHERE export_id = ?
            """;
    private static final String SQL_PROGRESS = """
            UPDATE snapshot_export
               SET phase = ?, rows_written = ?, bytes_written = ?, heartbeat_at = clock_timestamp()
             WHERE export_id = ? AND status = 'RUNNING'
            """;
    private static final String SQL_SNAPSHOT_READ = """
            UPDATE snapshot_export SET cursor = ?, chain_digest = ?, heartbeat_at = clock_timestamp()
             WHERE export_id = ? AND status = 'RUNNING'
            """;
    private static final String SQL_READY = """
            UPDATE snapshot_export
               SET status = 'READY', phase = 'DONE', manifest_key = ?, rows_written = ?, bytes_written = ?,
                   finished_at = clock_timestamp(), heartbeat_at = clock_timestamp()
             WHERE export_id = ? AND status = 'RUNNING'
            """;
    private static final String SQL_END = """
            UPDATE snapshot_export SET status = ?, error = ?, permanent = ?, finished_at = clock_timestamp()
             WHERE export_id = ? AND status = 'RUNNING'
            """;
    /* Every READY export of the stream beyond the newest {keep}, marked retired in one statement. */
    private static final String SQL_RETIRE_BEYOND = """
            UPDATE snapshot_export e SET retired_at = clock_timestamp()
              FROM (SELECT export_id FROM snapshot_export
                     WHERE tenant = ? AND catalog = ? AND status = 'READY' AND retired_at IS NULL
                     ORDER BY finished_at DESC, export_id DESC OFFSET ?) old
             WHERE e.export_id = old.export_id AND e.retired_at IS NULL
            RETURNING e.export_id, e.object_prefix
            """;
    private static final String SQL_FAIL_STALE = """
            UPDATE snapshot_export
               SET status = 'FAILED', finished_at = clock_timestamp(),
                   error = 'no heartbeat since ' || heartbeat_at || ' from instance ' || instance
             WHERE status = 'RUNNING' AND heartbeat_at < clock_timestamp() - make_interval(secs => ?)
            RETURNING export_id, object_prefix
            """;

    private final JdbcClient jdbc;

    ExportRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UUID exportId, StreamId s, UUID leaseId, long epoch, String objectPrefix, String requestedBy,
            String instance) {
        jdbc.sql(SQL_INSERT).params(exportId, s.tenant(), s.catalog(), leaseId, epoch, objectPrefix, requestedBy,
                instance).update();
    }

    Optional<ExportRow> find(UUID exportId) {
        return jdbc.sql(SQL_FIND).params(exportId).query(ExportRepository::row).optional();
    }

    void progress(UUID exportId, String phase, long rows, long bytes) {
        jdbc.sql(SQL_PROGRESS).params(phase, rows, bytes, exportId).update();
    }

    void snapshotRead(UUID exportId, long cursor, String chainDigest) {
        jdbc.sql(SQL_SNAPSHOT_READ).params(cursor, chainDigest, exportId).update();
    }

    /** @return false when the export is no longer RUNNING (a sweeper failed it) */
    boolean markReady(UUID exportId, String manifestKey, long rows, long bytes) {
        return jdbc.sql(SQL_READY).params(manifestKey, rows, bytes, exportId).update() == 1;
    }

    /** Ends a RUNNING export as FAILED or ABORTED, not permanently; no effect on one that already ended. */
    boolean markEnded(UUID exportId, ExportStatus status, String error) {
        return markEnded(exportId, status, error, false);
    }

    /**
     * Ends a RUNNING export as FAILED or ABORTED; no effect on one that already ended.
     *
     * @param permanent the failure is about the stream's data: a new export would fail the same way
     */
    boolean markEnded(UUID exportId, ExportStatus status, String error, boolean permanent) {
        return jdbc.sql(SQL_END).params(status.name(), error, permanent, exportId).update() == 1;
    }

    List<Retired> retireBeyond(StreamId s, int keep) {
        return jdbc.sql(SQL_RETIRE_BEYOND).params(s.tenant(), s.catalog(), keep)
                .query((rs, n) -> new Retired(rs.getObject(1, UUID.class), rs.getString(2))).list();
    }

    List<Retired> failStale(Duration staleAfter) {
        return jdbc.sql(SQL_FAIL_STALE).params(staleAfter.toMillis() / 1000.0)
                .query((rs, n) -> new Retired(rs.getObject(1, UUID.class), rs.getString(2))).list();
    }

    private static ExportRow row(ResultSet rs, int n) throws SQLException {
        long cursor = rs.getLong("cursor");
        Long w = rs.wasNull() ? null : cursor;
        return new ExportRow(rs.getObject("export_id", UUID.class),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getObject("lease_id", UUID.class),
                rs.getLong("epoch"), ExportStatus.valueOf(rs.getString("status")), w, rs.getString("chain_digest"),
                rs.getString("object_prefix"), rs.getString("manifest_key"), rs.getString("error"),
                rs.getString("phase"), rs.getLong("rows_written"), rs.getLong("bytes_written"),
                rs.getString("requested_by"), instant(rs, "created_at"), instant(rs, "heartbeat_at"),
                instant(rs, "finished_at"), instant(rs, "retired_at"), rs.getBoolean("permanent"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /** One export as stored. {@code cursor} and {@code chainDigest} are null until its snapshot was read. */
    record ExportRow(UUID exportId, StreamId stream, UUID leaseId, long epoch, ExportStatus status, Long cursor,
            String chainDigest, String objectPrefix, String manifestKey, String error, String phase, long rows,
            long bytes, String requestedBy, Instant createdAt, Instant heartbeatAt, Instant finishedAt,
            Instant retiredAt, boolean permanent) {
    }

    /** An export whose objects are to be deleted. */
    record Retired(UUID exportId, String objectPrefix) {
    }
}
