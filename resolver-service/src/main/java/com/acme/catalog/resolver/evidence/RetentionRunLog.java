package com.acme.catalog.resolver.evidence;

import java.lang.management.ManagementFactory;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.evidence.RetentionRunSummary;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The summaries of evidence retention runs, so any instance can answer the last one. */
@Repository
class RetentionRunLog {

    private static final String SQL_INSERT = """
            INSERT INTO evidence_retention_run (run_id, tenant, kind, instance, started_at, finished_at, outcome,
                                                checked, newly_missing, reappeared, missing, candidates,
                                                kept_referenced, expired, expired_bytes, objects_deleted, error)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;
    /** The last run that covered the tenant: one limited to it or one over every tenant. */
    private static final String SQL_LAST = """
            SELECT run_id, tenant, kind, started_at, finished_at, outcome, checked, newly_missing, reappeared, missing,
                   candidates, kept_referenced, expired, expired_bytes, objects_deleted, error
              FROM evidence_retention_run
             WHERE tenant = ? OR tenant IS NULL
             ORDER BY finished_at DESC LIMIT 1
            """;

    private final JdbcClient jdbc;
    private final String instance = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID()
            .toString().substring(0, 8);

    RetentionRunLog(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Stores the summary, naming this instance as the one that ran it. */
    void record(RetentionRunSummary s) {
        jdbc.sql(SQL_INSERT).params(s.runId(), s.tenant(), s.kind(), instance, Timestamp.from(s.startedAt()),
                Timestamp.from(s.finishedAt()), s.outcome(), s.checked(), s.newlyMissing(), s.reappeared(),
                s.missing(), s.candidates(), s.keptReferenced(), s.expired(), s.expiredBytes(), s.objectsDeleted(),
                s.error()).update();
    }

    Optional<RetentionRunSummary> last(String tenant) {
        return jdbc.sql(SQL_LAST).params(tenant).query(RetentionRunLog::summary).optional();
    }

    private static RetentionRunSummary summary(ResultSet rs, int row) throws SQLException {
        return new RetentionRunSummary(rs.getObject("run_id", UUID.class), rs.getString("tenant"), rs.getString("kind"),
                rs.getTimestamp("started_at").toInstant(), rs.getTimestamp("finished_at").toInstant(),
                rs.getString("outcome"), rs.getLong("checked"), rs.getLong("newly_missing"), rs.getLong("reappeared"),
                rs.getLong("missing"), rs.getLong("candidates"), rs.getLong("kept_referenced"), rs.getLong("expired"),
                rs.getLong("expired_bytes"), rs.getLong("objects_deleted"), rs.getString("error"));
    }
}
