package com.acme.catalog.contracts.evidence;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * An artifact's metadata ({@code GET /v1/tenants/{tenant}/evidence/{artifactId}}). {@code missingSince} is set
 * while the retention job finds no object in the store, {@code expiredAt} once the artifact expired (its bytes,
 * runs and claims are gone; this row stays).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ArtifactView(UUID artifactId, String tenant, String sha256, long bytes, String contentType,
        ArtifactStatus status, boolean fixture, Instant receivedAt, Instant lastActivityAt, Instant missingSince,
        Instant expiredAt) {

    public ArtifactView {
        Objects.requireNonNull(artifactId, "artifactId");
        Objects.requireNonNull(status, "status");
    }
}
