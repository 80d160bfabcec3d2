package com.acme.catalog.contracts.evidence;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** An artifact whose object the retention job did not find in the store (kept, flagged, never deleted). */
public record MissingArtifact(UUID artifactId, String sha256, long bytes, String objectKey, Instant missingSince) {

    public MissingArtifact {
        Objects.requireNonNull(artifactId, "artifactId");
        Objects.requireNonNull(missingSince, "missingSince");
    }
}
