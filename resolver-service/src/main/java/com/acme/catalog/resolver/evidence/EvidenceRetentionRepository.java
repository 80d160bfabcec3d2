package com.acme.catalog.resolver.evidence;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The statements of evidence retention. Every "may this artifact expire?" is decided by {@link #KEEP} in the
 * database, against the database clock. {@code tenant} parameters are null for every tenant.
 */
@Repository
class EvidenceRetentionRepository {

    /**
     * What keeps artifact {@code a}: the fixture mark, a decision citing it (every accepted revision a decision made
     * cites that decision, so accepted facts are covered), or a claim of it in a review case. A decided case's
     * artifacts are cited by its decision; testing case claims whether open or decided is the same set, and its
     * claims are pinned by a foreign key anyway.
     */
    static final String KEEP = """
            (a.fixture
             OR EXISTS (SELECT 1 FROM decision_citation dc WHERE dc.artifact_id = a.artifact_id)
             OR EXISTS (SELECT 1 FROM claim cl JOIN review_case_claim rc ON rc.claim_id = cl.claim_id
                         WHERE cl.artifact_id = a.artifact_id))
            """;
    /** The tenant filter, {@code :tenant} bound to the scan's tenant (null: every tenant). */
    private static final String TENANT = "(CAST(:tenant AS text) IS NULL OR a.tenant = CAST(:tenant AS text))";

    private static final BoundSql<Scan> PENDING_DELETES = Scan.sql().param("limit", Scan::limit)
            .sql("SELECT ").sql(Artifact.COLUMNS).sql("""
                      FROM evidence_artifact a
                     WHERE expired_at IS NOT NULL AND object_deleted_at IS NULL AND\s""").sql(TENANT).sql("""

                     ORDER BY artifact_id LIMIT :limit
                    """).build();
    private static final String SQL_OBJECT_DELETED = """
            UPDATE evidence_artifact SET object_deleted_at = now() WHERE artifact_id = ? AND expired_at IS NOT NULL
            """;
    private static final BoundSql<Scan> LIVE_PAGE = Scan.sql().param("after", Scan::after)
            .param("limit", Scan::limit)
            .sql("SELECT ").sql(Artifact.COLUMNS).sql("""
                      FROM evidence_artifact a
                     WHERE expired_at IS NULL AND\s""").sql(TENANT).sql("""

                       AND artifact_id > :after ORDER BY artifact_id LIMIT :limit
                    """).build();
    /** Flags only the object that was checked: an intake that healed the artifact meanwhile changed the key. */
    private static final String SQL_FLAG_MISSING = """
            UPDATE evidence_artifact SET missing_since = now(), checked_at = now()
             WHERE artifact_id = ? AND object_key = ? AND expired_at IS NULL AND missing_since IS NULL
            """;
    private static final String SQL_CLEAR_MISSING = """
            UPDATE evidence_artifact SET missing_since = NULL, checked_at = now()
             WHERE artifact_id = ? AND object_key = ? AND missing_since IS NOT NULL
            """;
    private static final String SQL_CHECKED = """
            UPDATE evidence_artifact SET checked_at = now() WHERE artifact_id = ANY (?::uuid[])
            """;
    /** Unreferenced, present, not a fixture, and inactive for the window: may expire (decided again under lock). */
    private static final BoundSql<Scan> CANDIDATES = Scan.sql().param("window", Scan::windowSeconds)
            .param("after", Scan::after).param("limit", Scan::limit)
            .sql("""
                    SELECT a.artifact_id FROM evidence_artifact a
                     WHERE a.expired_at IS NULL AND a.missing_since IS NULL
                       AND a.last_activity_at < clock_timestamp() - make_interval(secs => :window)
                       AND\s""").sql(TENANT).sql("""

                       AND a.artifact_id > :after AND NOT\s""").sql(KEEP).sql("""
                     ORDER BY a.artifact_id LIMIT :limit
                    """).build();
    /**
     * The guarding lock: the artifact row FOR UPDATE, which waits for every reference in flight (they share-lock or
     * update the row) and stops new ones until the expiry commits.
     */
    private static final BoundSql<UUID> LOCK_FOR_EXPIRY = BoundSql.<UUID>builder()
            .sql("SELECT ").sql(Artifact.COLUMNS).sql("""
                      FROM evidence_artifact a WHERE artifact_id = ? AND expired_at IS NULL FOR UPDATE
                    """, id -> id).build();
    /**
     * The candidate test again, as its own statement after the lock is granted: under READ COMMITTED it reads a
     * snapshot taken now, so it sees every reference committed while the lock was awaited.
     */
    private static final BoundSql<Recheck> STILL_EXPIRABLE = BoundSql.<Recheck>builder()
            .sql("""
                    SELECT a.missing_since IS NULL
                           AND a.last_activity_at < clock_timestamp() - make_interval(secs => ?)
                           AND NOT\s""", Recheck::windowSeconds).sql(KEEP).sql("""
                      FROM evidence_artifact a WHERE a.artifact_id = ?
                    """, Recheck::artifactId).build();
    private static final String SQL_DELETE_CLAIMS = "DELETE FROM claim WHERE artifact_id = ?";
    private static final String SQL_DELETE_RUNS = "DELETE FROM extraction_run WHERE artifact_id = ?";
    private static final String SQL_TOMBSTONE = """
            UPDATE evidence_artifact SET expired_at = now(), missing_since = NULL WHERE artifact_id = ?
            """;
    private static final BoundSql<Scan> COUNT_MISSING = Scan.sql()
            .sql("""
                    SELECT count(*) FROM evidence_artifact a
                     WHERE missing_since IS NOT NULL AND expired_at IS NULL AND\s""").sql(TENANT).build();

    private final JdbcClient jdbc;

    EvidenceRetentionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Expired artifacts whose object delete has not been confirmed (a crash or a store error after the expiry). */
    List<Artifact> pendingObjectDeletes(String tenant, int limit) {
        return query(PENDING_DELETES, new Scan(tenant, null, 0, limit)).query(Artifact::from).list();
    }

    void objectDeleted(UUID artifactId) {
        jdbc.sql(SQL_OBJECT_DELETED).params(artifactId).update();
    }

    /** Live (not expired) artifacts after {@code after} in id order. */
    List<Artifact> livePage(String tenant, UUID after, int limit) {
        return query(LIVE_PAGE, new Scan(tenant, after, 0, limit)).query(Artifact::from).list();
    }

    /** @return whether this call flagged it (false: already flagged, healed or expired meanwhile) */
    boolean flagMissing(Artifact a) {
        return jdbc.sql(SQL_FLAG_MISSING).params(a.artifactId(), a.objectKey()).update() == 1;
    }

    /** @return whether a flag was cleared */
    boolean clearMissing(Artifact a) {
        return jdbc.sql(SQL_CLEAR_MISSING).params(a.artifactId(), a.objectKey()).update() == 1;
    }

    void checked(List<UUID> artifactIds) {
        if (!artifactIds.isEmpty()) {
            jdbc.sql(SQL_CHECKED).params((Object) artifactIds.stream().map(UUID::toString).toArray(String[]::new))
                    .update();
        }
    }

    List<UUID> candidates(String tenant, long windowSeconds, UUID after, int limit) {
        return query(CANDIDATES, new Scan(tenant, after, windowSeconds, limit)).query(UUID.class).list();
    }

    /** Inside the expiry's transaction: the live artifact, locked; empty when it expired meanwhile. */
    Optional<Artifact> lockForExpiry(UUID artifactId) {
        return query(LOCK_FOR_EXPIRY, artifactId).query(Artifact::from).optional();
    }

    boolean stillExpirable(UUID artifactId, long windowSeconds) {
        return query(STILL_EXPIRABLE, new Recheck(artifactId, windowSeconds)).query(Boolean.class).single();
    }

    /** Deletes the artifact's claims and runs and leaves its row as an EXPIRED tombstone. */
    void expire(UUID artifactId) {
        jdbc.sql(SQL_DELETE_CLAIMS).params(artifactId).update();
        jdbc.sql(SQL_DELETE_RUNS).params(artifactId).update();
        jdbc.sql(SQL_TOMBSTONE).params(artifactId).update();
    }

    long countMissing(String tenant) {
        return query(COUNT_MISSING, new Scan(tenant, null, 0, 0)).query(Long.class).single();
    }

    private <A> JdbcClient.StatementSpec query(BoundSql<A> statement, A args) {
        return jdbc.sql(statement.sql()).params(statement.params(args));
    }

    /**
     * A scan's parameters, each bound by name where its statement uses it.
     *
     * @param tenant        the tenant, null for every tenant
     * @param after         the artifact id the page starts after
     * @param windowSeconds the inactivity window
     * @param limit         the page's size
     */
    private record Scan(String tenant, UUID after, long windowSeconds, int limit) {
        /** @return a builder with {@code :tenant} bound; a statement binds the other names it uses */
        static BoundSql.Builder<Scan> sql() {
            return BoundSql.<Scan>builder().param("tenant", Scan::tenant);
        }
    }

    private record Recheck(UUID artifactId, long windowSeconds) {
    }
}
