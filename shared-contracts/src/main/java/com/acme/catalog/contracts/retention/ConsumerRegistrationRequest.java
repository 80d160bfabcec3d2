package com.acme.catalog.contracts.retention;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/retention/consumers}: a consumer whose durable progress pins retention in one epoch of a stream;
 * with a {@code deliveryUrl}, the relay pushes events to it. A record that exists is valid: ids 400
 * {@code INVALID_ID}, anything else 400 {@code INVALID_BODY}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConsumerRegistrationRequest(
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String consumerId,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String tenant,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String catalog,
        @JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long epoch,
        @JsonDeserialize(using = StrictJson.Text.class) String deliveryUrl) {

    /** Longest delivery URL accepted. */
    public static final int MAX_URL_LENGTH = 2048;

    public ConsumerRegistrationRequest {
        AggregateIds.require("consumerId", consumerId);
        new StreamId(tenant, catalog);
        RetentionRules.epoch(epoch);
        RetentionRules.deliveryUrl(deliveryUrl);
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }
}
