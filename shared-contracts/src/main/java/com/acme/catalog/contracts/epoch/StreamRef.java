package com.acme.catalog.contracts.epoch;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/** One stream named in a rotation's scope: {@code {"tenant","catalog"}}; ids 400 {@code INVALID_ID}. */
public record StreamRef(@JsonDeserialize(using = StrictJson.TextOrNull.class) String tenant,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String catalog) {

    public StreamRef {
        new StreamId(tenant, catalog);
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }
}
