package com.acme.catalog.resolver.evidence;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.evidence.EvidenceRetentionStatus;
import com.acme.catalog.contracts.evidence.EvidenceRetentionStatus.ReferenceCounts;
import com.acme.catalog.contracts.evidence.MissingArtifact;

import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** A tenant's evidence by retention state, counted in one statement with the job's own {@code KEEP} rule. */
@Component
class EvidenceRetentionStatusReader {

    private static final int MISSING_LISTED = 1000;

    /** Counts of the tenant's artifacts; {@code referenced} is what the retention job's keep rule keeps. */
    private static final BoundSql<String> COUNTS = BoundSql.<String>builder()
            .sql("""
                    SELECT count(*) FILTER (WHERE a.expired_at IS NULL) AS artifacts,
                           count(*) FILTER (WHERE a.expired_at IS NULL AND\s""")
            .sql(EvidenceRetentionRepository.KEEP).sql("""
             ) AS referenced,
             count(*) FILTER (WHERE a.expired_at IS NOT NULL) AS expired,
             count(*) FILTER (WHERE a.expired_at IS NULL AND EXISTS (
                 SELECT 1 FROM decision_citation dc JOIN decision_revision dr ON dr.decision_id = dc.decision_id
                  WHERE dc.artifact_id = a.artifact_id)) AS accepted_facts,
             count(*) FILTER (WHERE a.expired_at IS NULL AND EXISTS (
                 SELECT 1 FROM decision_citation dc WHERE dc.artifact_id = a.artifact_id)) AS decisions,
             count(*) FILTER (WHERE a.expired_at IS NULL AND EXISTS (
                 SELECT 1 FROM claim cl JOIN review_case_claim rc ON rc.claim_id = cl.claim_id
                  WHERE cl.artifact_id = a.artifact_id
                    AND NOT EXISTS (SELECT 1 FROM review_decision d WHERE d.case_id = rc.case_id))) AS open_cases,
             count(*) FILTER (WHERE a.expired_at IS NULL AND a.fixture) AS fixtures
              FROM evidence_artifact a WHERE a.tenant = ?
            """, tenant -> tenant).build();
    private static final String SQL_MISSING = """
            SELECT artifact_id, sha256, bytes, object_key, missing_since FROM evidence_artifact
             WHERE tenant = ? AND missing_since IS NOT NULL AND expired_at IS NULL
             ORDER BY missing_since, artifact_id LIMIT ?
            """;

    private final JdbcClient jdbc;
    private final RetentionRunLog runs;
    private final EvidenceProperties properties;

    EvidenceRetentionStatusReader(JdbcClient jdbc, RetentionRunLog runs, EvidenceProperties properties) {
        this.jdbc = jdbc;
        this.runs = runs;
        this.properties = properties;
    }

    EvidenceRetentionStatus read(String tenant) {
        List<MissingArtifact> missing = jdbc.sql(SQL_MISSING).params(tenant, MISSING_LISTED)
                .query((rs, n) -> new MissingArtifact(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3),
                        rs.getString(4), rs.getTimestamp(5).toInstant())).list();
        return jdbc.sql(COUNTS.sql()).params(COUNTS.params(tenant)).query((rs, n) -> {
            long artifacts = rs.getLong("artifacts");
            long referenced = rs.getLong("referenced");
            return new EvidenceRetentionStatus(tenant, artifacts, referenced, artifacts - referenced,
                    rs.getLong("expired"), missing, new ReferenceCounts(rs.getLong("accepted_facts"),
                            rs.getLong("decisions"), rs.getLong("open_cases"), rs.getLong("fixtures")),
                    properties.retention().window().toString(), runs.last(tenant).orElse(null));
        }).single();
    }
}
