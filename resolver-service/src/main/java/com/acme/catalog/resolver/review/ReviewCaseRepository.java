package com.acme.catalog.resolver.review;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.review.CaseStatus;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Review cases and their claims: inserted once, never changed (the database refuses UPDATE and DELETE). */
@Repository
class ReviewCaseRepository {

    private static final String SQL_INSERT = """
            INSERT INTO review_case (case_id, tenant, catalog, changes, created_by) VALUES (?, ?, ?, ?::json, ?)
            """;
    private static final String SQL_INSERT_CLAIMS = """
            INSERT INTO review_case_claim (case_id, claim_id, ordinal)
            SELECT ?, u.claim_id, u.n - 1 FROM unnest(?::uuid[]) WITH ORDINALITY AS u(claim_id, n)
            """;
    private static final String SQL_FIND = "SELECT " + ReviewCase.COLUMNS + """
              FROM review_case c LEFT JOIN review_decision d ON d.case_id = c.case_id
             WHERE c.case_id = ? AND c.tenant = ? AND c.catalog = ?
            """;
    /** {@code status}: null for every case, else OPEN (no decision) or DECIDED; {@code after}: null from the start. */
    private static final String SQL_LIST = "SELECT " + ReviewCase.COLUMNS + """
              FROM review_case c LEFT JOIN review_decision d ON d.case_id = c.case_id
             WHERE c.tenant = ? AND c.catalog = ?
               AND (CAST(? AS text) IS NULL OR (CAST(? AS text) = 'OPEN') = (d.decision_id IS NULL))
               AND (CAST(? AS uuid) IS NULL OR c.case_id > CAST(? AS uuid))
             ORDER BY c.case_id
             LIMIT ?
            """;
    /**
     * The case row locked until the transaction ends: deciders of one case are serialized. Whether it is decided
     * is read by a separate statement after the lock is granted ({@link #decided}): a subquery here would read the
     * snapshot taken before waiting for the lock, and miss the decision the holder just committed.
     */
    private static final String SQL_LOCK = """
            SELECT case_id FROM review_case WHERE case_id = ? AND tenant = ? AND catalog = ? FOR UPDATE
            """;
    private static final String SQL_DECIDED = "SELECT EXISTS (SELECT 1 FROM review_decision WHERE case_id = ?)";

    private final JdbcClient jdbc;

    ReviewCaseRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UUID caseId, StreamId stream, String changesJson, List<UUID> claimIds, String createdBy) {
        jdbc.sql(SQL_INSERT).params(caseId, stream.tenant(), stream.catalog(), changesJson, createdBy).update();
        jdbc.sql(SQL_INSERT_CLAIMS).params(caseId, claimIds.stream().map(UUID::toString).toArray(String[]::new))
                .update();
    }

    Optional<ReviewCase> find(StreamId stream, UUID caseId) {
        return jdbc.sql(SQL_FIND).params(caseId, stream.tenant(), stream.catalog()).query(ReviewCase::from)
                .optional();
    }

    List<ReviewCase> list(StreamId stream, CaseStatus status, UUID after, int limit) {
        String s = status == null ? null : status.name();
        return jdbc.sql(SQL_LIST).params(stream.tenant(), stream.catalog(), s, s, after, after, limit)
                .query(ReviewCase::from).list();
    }

    /** @return whether the case exists in the stream (and is now locked by the caller's transaction) */
    boolean lock(StreamId stream, UUID caseId) {
        return jdbc.sql(SQL_LOCK).params(caseId, stream.tenant(), stream.catalog()).query().listOfRows().size() == 1;
    }

    boolean decided(UUID caseId) {
        return jdbc.sql(SQL_DECIDED).params(caseId).query(Boolean.class).single();
    }
}
