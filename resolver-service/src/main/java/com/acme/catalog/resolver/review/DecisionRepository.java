package com.acme.catalog.resolver.review;

import java.util.Collection;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.review.DecisionRequest;
import com.acme.catalog.resolver.stream.WriteResult;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Decision rows and what they cite: inserted once, never changed (the database refuses UPDATE and DELETE). */
@Repository
class DecisionRepository {

    private static final String SQL_INSERT = """
            INSERT INTO review_decision (decision_id, case_id, tenant, catalog, decision, reviewer, reason, epoch,
                                         first_position, last_position, transaction_id, decided_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;
    private static final String SQL_CITE_ARTIFACTS = """
            INSERT INTO decision_citation (decision_id, artifact_id) SELECT ?, u.a FROM unnest(?::uuid[]) AS u(a)
            """;
    /**
     * Every accepted revision the decision's logical transaction made cites the decision; its state events are the
     * outbox rows at its positions (the DecisionRecorded event among them carries no revision of accepted state).
     */
    private static final String SQL_CITE_REVISIONS = """
            INSERT INTO decision_revision (tenant, catalog, aggregate_type, aggregate_id, revision, decision_id)
            SELECT tenant, catalog, aggregate_type, aggregate_id, revision, ?
              FROM outbox
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position BETWEEN ? AND ?
               AND transaction_id = ? AND event_type <> 'DecisionRecorded'
            """;

    private final JdbcClient jdbc;

    DecisionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @param applied the ACCEPT's logical transaction; null for a REJECT */
    void insert(UUID decisionId, UUID caseId, StreamId stream, DecisionRequest request, WriteResult applied,
            String decidedBy) {
        jdbc.sql(SQL_INSERT).params(decisionId, caseId, stream.tenant(), stream.catalog(), request.decision().name(),
                request.reviewer(), request.reason(), applied == null ? null : applied.epoch(),
                applied == null ? null : applied.firstPosition(), applied == null ? null : applied.lastPosition(),
                applied == null ? null : applied.transactionId(), decidedBy).update();
    }

    void citeArtifacts(UUID decisionId, Collection<UUID> artifactIds) {
        jdbc.sql(SQL_CITE_ARTIFACTS).params(decisionId, artifactIds.stream().map(UUID::toString).toArray(String[]::new))
                .update();
    }

    /** @return how many revisions now cite the decision */
    int citeRevisions(UUID decisionId, StreamId stream, WriteResult applied) {
        return jdbc.sql(SQL_CITE_REVISIONS).params(decisionId, stream.tenant(), stream.catalog(), applied.epoch(),
                applied.firstPosition(), applied.lastPosition(), applied.transactionId()).update();
    }
}
