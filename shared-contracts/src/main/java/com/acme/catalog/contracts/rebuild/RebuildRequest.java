package com.acme.catalog.contracts.rebuild;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/rebuilds}: rebuild the product's copy of one stream. A record that exists is valid: a missing or
 * non-string field 400 {@code INVALID_BODY}, a malformed tenant or catalog 400 {@code INVALID_ID}.
 */
public record RebuildRequest(@JsonDeserialize(using = StrictJson.Text.class) String tenant,
        @JsonDeserialize(using = StrictJson.Text.class) String catalog) {

    /** What a refused body is told it should have been. */
    public static final String EXPECTED = "body must be {\"tenant\",\"catalog\"}";

    public RebuildRequest {
        if (tenant == null || catalog == null) {
            throw new ApiException(ProblemCode.INVALID_BODY, EXPECTED);
        }
        new StreamId(tenant, catalog);
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }
}
