package com.acme.catalog.resolver.evidence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

import com.acme.catalog.contracts.evidence.ArtifactStatus;
import com.acme.catalog.contracts.evidence.ArtifactView;

/** One {@code evidence_artifact} row. */
record Artifact(UUID artifactId, String tenant, String sha256, long bytes, String contentType, String objectKey,
        boolean fixture, Instant receivedAt, Instant lastActivityAt, Instant missingSince, Instant expiredAt) {

    /** The columns {@link #from} reads, for the repositories' statements. */
    static final String COLUMNS = """
            artifact_id, tenant, sha256, bytes, content_type, object_key, fixture, received_at, last_activity_at,
            missing_since, expired_at
            """;

    ArtifactStatus status() {
        if (expiredAt != null) {
            return ArtifactStatus.EXPIRED;
        }
        return missingSince != null ? ArtifactStatus.MISSING : ArtifactStatus.PRESENT;
    }

    ArtifactView view() {
        return new ArtifactView(artifactId, tenant, sha256, bytes, contentType, status(), fixture, receivedAt,
                lastActivityAt, missingSince, expiredAt);
    }

    static Artifact from(ResultSet rs, int row) throws SQLException {
        return new Artifact(rs.getObject("artifact_id", UUID.class), rs.getString("tenant"), rs.getString("sha256"),
                rs.getLong("bytes"), rs.getString("content_type"), rs.getString("object_key"),
                rs.getBoolean("fixture"), instant(rs.getTimestamp("received_at")),
                instant(rs.getTimestamp("last_activity_at")), instant(rs.getTimestamp("missing_since")),
                instant(rs.getTimestamp("expired_at")));
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
