package com.acme.catalog.contracts.retention;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/retention/prune}: which streams to prune now; both absent: every stream, a tenant alone: its
 * streams. A catalog needs its tenant.
 */
public record PruneRequest(@JsonDeserialize(using = StrictJson.Text.class) String tenant,
        @JsonDeserialize(using = StrictJson.Text.class) String catalog) {

    /** Every stream. */
    public static final PruneRequest ALL = new PruneRequest(null, null);

    public PruneRequest {
        if (tenant != null) {
            StreamId.requirePart("tenant", tenant);
        }
        if (catalog != null) {
            if (tenant == null) {
                throw RetentionRules.invalid("catalog needs tenant");
            }
            StreamId.requirePart("catalog", catalog);
        }
    }
}
