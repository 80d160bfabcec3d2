package com.acme.catalog.contracts.retention;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code PUT /v1/retention/consumers/{consumerId}/progress}: everything through {@code position} of the epoch is
 * durably applied by the consumer. A record that exists is valid.
 */
public record ProgressRequest(
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String tenant,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String catalog,
        @JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long epoch,
        @JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long position) {

    public ProgressRequest {
        new StreamId(tenant, catalog);
        RetentionRules.epoch(epoch);
        RetentionRules.nonNegative("position", position);
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }
}
