package com.acme.catalog.contracts.evidence;

import java.util.Objects;
import java.util.UUID;

/**
 * The answer to an evidence intake ({@code POST /v1/tenants/{tenant}/evidence}): 201 for new bytes, 200 when the
 * tenant already had an artifact with the same SHA-256 (then these are that artifact's id and content type).
 */
public record ArtifactReceipt(UUID artifactId, String sha256, long bytes, String contentType) {

    public ArtifactReceipt {
        Objects.requireNonNull(artifactId, "artifactId");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(contentType, "contentType");
    }
}
