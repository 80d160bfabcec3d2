package com.acme.catalog.resolver.evidence;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Artifact rows: intake with dedupe, reads, the fixture mark, and the row locks that order a new reference to an
 * artifact against its expiry ({@link ArtifactReferences}, {@code EvidenceExpirer}).
 */
@Repository
class ArtifactRepository {

    /**
     * A new artifact, or the tenant's live artifact with the same SHA-256. Two intakes of the same bytes at once:
     * the second insert waits on the unique index for the first to commit and then updates its row, so both
     * answer one artifact. The update refreshes its activity (its expiry window starts again) and takes the row lock
     * a concurrent expiry also takes: either the expiry commits first (then the row no longer matches the partial
     * index and this inserts a new artifact) or it finds the activity refreshed and keeps it. The same bytes again
     * also heal an artifact flagged missing: the new object replaces the lost one.
     */
    private static final String SQL_RECORD = """
            INSERT INTO evidence_artifact AS a (artifact_id, tenant, sha256, bytes, content_type, object_key,
                                                received_by)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant, sha256) WHERE expired_at IS NULL DO UPDATE
               SET last_activity_at = now(),
                   object_key = CASE WHEN a.missing_since IS NULL THEN a.object_key ELSE excluded.object_key END,
                   missing_since = NULL
            RETURNING\s""" + Artifact.COLUMNS;
    private static final String SQL_FIND = "SELECT " + Artifact.COLUMNS
            + " FROM evidence_artifact WHERE artifact_id = ? AND tenant = ?";
    private static final String SQL_SET_FIXTURE = "UPDATE evidence_artifact SET fixture = ?"
            + " WHERE artifact_id = ? AND tenant = ? AND expired_at IS NULL RETURNING " + Artifact.COLUMNS;
    /** An extraction run is activity: its artifact's window starts again (and the row lock orders it, see above). */
    private static final String SQL_TOUCH = """
            UPDATE evidence_artifact SET last_activity_at = now()
             WHERE artifact_id = ? AND tenant = ? AND expired_at IS NULL
            """;
    /**
     * Share locks on the named artifacts, in id order (no two lockers deadlock), until the transaction ends: an
     * expiry, which locks its artifact FOR UPDATE and then re-checks its references, waits for this reference to
     * commit and then sees it; or it committed first, and this sees {@code expired_at}.
     */
    private static final String SQL_LOCK_SHARED = "SELECT " + Artifact.COLUMNS + """
             FROM evidence_artifact WHERE tenant = ? AND artifact_id = ANY (?::uuid[])
             ORDER BY artifact_id
               FOR SHARE
            """;

    private final JdbcClient jdbc;

    ArtifactRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return the artifact now holding the bytes: the new row, or the tenant's existing one with the same SHA-256 */
    Artifact record(UUID artifactId, String tenant, String sha256, long bytes, String contentType, String objectKey,
            String receivedBy) {
        return jdbc.sql(SQL_RECORD).params(artifactId, tenant, sha256, bytes, contentType, objectKey, receivedBy)
                .query(Artifact::from).single();
    }

    Optional<Artifact> find(String tenant, UUID artifactId) {
        return jdbc.sql(SQL_FIND).params(artifactId, tenant).query(Artifact::from).optional();
    }

    /** @return the updated artifact; empty when it is unknown or expired */
    Optional<Artifact> setFixture(String tenant, UUID artifactId, boolean fixture) {
        return jdbc.sql(SQL_SET_FIXTURE).params(fixture, artifactId, tenant).query(Artifact::from).optional();
    }

    /** @return whether a live artifact was touched (false: unknown or expired) */
    boolean touch(String tenant, UUID artifactId) {
        return jdbc.sql(SQL_TOUCH).params(artifactId, tenant).update() == 1;
    }

    /** Locks the tenant's named artifacts FOR SHARE (inside the caller's transaction) and answers what it found. */
    List<Artifact> lockShared(String tenant, Collection<UUID> artifactIds) {
        String[] ids = artifactIds.stream().map(UUID::toString).toArray(String[]::new);
        return jdbc.sql(SQL_LOCK_SHARED).params(tenant, ids).query(Artifact::from).list();
    }
}
