package com.acme.catalog.resolver.review;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.review.Verdict;
import com.acme.catalog.platform.sql.BoundSql;

/**
 * A review case with its claims and, once decided, its decision ({@link #decision} null while open).
 *
 * @param changesJson the proposed changes as stored: a JSON array of transaction changes
 */
record ReviewCase(UUID caseId, StreamId stream, String changesJson, List<UUID> claimIds, String createdBy,
        Instant createdAt, Decision decision) {

    /** A recorded decision; epoch, positions and transaction id only for an ACCEPT. */
    record Decision(UUID decisionId, Verdict verdict, String reviewer, String reason, String decidedBy,
            Instant decidedAt, Long epoch, Long firstPosition, Long lastPosition, UUID transactionId,
            List<UUID> artifactIds) {
    }

    /**
     * The select list {@link #from} reads: the case {@code c}, its claims, its decision {@code d} and citations;
     * the statements that read cases include it before their {@code FROM}.
     */
    static final BoundSql<Void> SELECT = BoundSql.<Void>builder().sql("""
            SELECT c.case_id, c.tenant, c.catalog, c.changes::text AS changes, c.created_by, c.created_at,
            ARRAY(SELECT cc.claim_id FROM review_case_claim cc WHERE cc.case_id = c.case_id ORDER BY cc.ordinal)
                AS claim_ids,
            d.decision_id, d.decision, d.reviewer, d.reason, d.decided_by, d.decided_at, d.epoch, d.first_position,
            d.last_position, d.transaction_id,
            ARRAY(SELECT dc.artifact_id FROM decision_citation dc WHERE dc.decision_id = d.decision_id
                   ORDER BY dc.artifact_id) AS artifact_ids
            """).build();

    static ReviewCase from(ResultSet rs, int row) throws SQLException {
        Decision decision = null;
        UUID decisionId = rs.getObject("decision_id", UUID.class);
        if (decisionId != null) {
            decision = new Decision(decisionId, Verdict.valueOf(rs.getString("decision")), rs.getString("reviewer"),
                    rs.getString("reason"), rs.getString("decided_by"), rs.getTimestamp("decided_at").toInstant(),
                    (Long) rs.getObject("epoch"), (Long) rs.getObject("first_position"),
                    (Long) rs.getObject("last_position"), rs.getObject("transaction_id", UUID.class),
                    uuids(rs.getArray("artifact_ids")));
        }
        Timestamp created = rs.getTimestamp("created_at");
        return new ReviewCase(rs.getObject("case_id", UUID.class),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getString("changes"),
                uuids(rs.getArray("claim_ids")), rs.getString("created_by"), created.toInstant(), decision);
    }

    private static List<UUID> uuids(Array array) throws SQLException {
        List<UUID> out = new ArrayList<>();
        if (array != null) {
            for (Object o : (Object[]) array.getArray()) {
                out.add(o instanceof UUID u ? u : UUID.fromString(o.toString()));
            }
        }
        return out;
    }
}
