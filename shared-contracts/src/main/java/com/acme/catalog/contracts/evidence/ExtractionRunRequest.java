package com.acme.catalog.contracts.evidence;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.BodyRules;

/**
 * {@code POST /v1/streams/{tenant}/{catalog}/extraction-runs}: what one extractor made of one artifact of the
 * tenant. {@code unmappedFields} may be absent (none).
 */
public record ExtractionRunRequest(UUID artifactId, String extractor, List<ClaimInput> claims,
        List<UnmappedField> unmappedFields) {

    /** Most claims one run may carry. */
    public static final int MAX_CLAIMS = 10_000;
    /** Most unmapped fields one run may carry. */
    public static final int MAX_UNMAPPED = 10_000;

    public ExtractionRunRequest {
        BodyRules.present("artifactId", artifactId);
        BodyRules.text("extractor", extractor, 256);
        claims = BodyRules.list("claims", claims, 0, MAX_CLAIMS);
        unmappedFields = unmappedFields == null ? List.of()
                : BodyRules.list("unmappedFields", unmappedFields, 0, MAX_UNMAPPED);
    }
}
