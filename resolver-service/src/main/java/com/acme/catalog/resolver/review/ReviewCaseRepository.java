package com.acme.catalog.resolver.review;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.review.CaseStatus;
import com.acme.catalog.platform.sql.BoundSql;

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
    private static final BoundSql<Find> FIND = BoundSql.<Find>builder().include(ReviewCase.SELECT, f -> null).sql("""
              FROM review_case c LEFT JOIN review_decision d ON d.case_id = c.case_id
             WHERE c.case_id = ? AND c.tenant = ? AND c.catalog = ?
            """, Find::caseId, f -> f.stream().tenant(), f -> f.stream().catalog()).build();
    /** {@code status}: null for every case, else OPEN (no decision) or DECIDED; {@code after}: null from the start. */
    private static final BoundSql<Page> LIST = BoundSql.<Page>builder()
            .param("tenant", p -> p.stream().tenant()).param("catalog", p -> p.stream().catalog())
            .param("status", Page::status).param("after", Page::after).param("limit", Page::limit)
            .include(ReviewCase.SELECT, p -> null).sql("""
              FROM review_case c LEFT JOIN review_decision d ON d.case_id = c.case_id
             WHERE c.tenant = :tenant AND c.catalog = :catalog
               AND (CAST(:status AS text) IS NULL OR (CAST(:status AS text) = 'OPEN') = (d.decision_id IS NULL))
               AND (CAST(:after AS uuid) IS NULL OR c.case_id > CAST(:after AS uuid))
             ORDER BY c.case_id
             LIMIT :limit
            """).build();
    /**
     * The case row locked until the transaction ends: deciders of one case are serialized. Whether it is decided
     * is read by a separate statement after the lock is granted ({@link #decided}): a subquery here would read the
     * snapshot taken before waiting for the lock, and miss the decision the holder just committed.
     */
    private static final String SQL_LOCK = """
            SELECT case_id FROM review_case WHERE case_id = ? AND tenant = ? AND catalog = ? FOR UPDATE
            """;
    private static final String SQL_DECIDED = """
            SELECT EXISTS (SELECT 1 FROM review_decision WHERE case_id = ?)
            """;

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
        return jdbc.sql(FIND.sql()).params(FIND.params(new Find(stream, caseId))).query(ReviewCase::from).optional();
    }

    List<ReviewCase> list(StreamId stream, CaseStatus status, UUID after, int limit) {
        Page page = new Page(stream, status == null ? null : status.name(), after, limit);
        return jdbc.sql(LIST.sql()).params(LIST.params(page)).query(ReviewCase::from).list();
    }

    /** @return whether the case exists in the stream (and is now locked by the caller's transaction) */
    boolean lock(StreamId stream, UUID caseId) {
        return jdbc.sql(SQL_LOCK).params(caseId, stream.tenant(), stream.catalog()).query().listOfRows().size() == 1;
    }

    boolean decided(UUID caseId) {
        return jdbc.sql(SQL_DECIDED).params(caseId).query(Boolean.class).single();
    }

    /** The parameters of {@link #FIND}. */
    private record Find(StreamId stream, UUID caseId) {
    }

    /** The parameters of {@link #LIST}: {@code status} and {@code after} may be null. */
    private record Page(StreamId stream, String status, UUID after, int limit) {
    }
}
