package com.acme.catalog.contracts.retention;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/retention/consumers}: a consumer whose durable progress pins retention in one epoch of a stream;
 * with a {@code deliveryUrl}, the relay pushes events to it. With {@code catalog} {@value #ANY} (and optionally
 * {@code tenant} {@value #ANY}) it is a subscription: the consumer is registered at position 0 of every matching
 * stream, existing and future, and {@code epoch} is omitted. A record that exists is valid: ids 400
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

    /** The pattern that matches every catalog (or, as the tenant, every tenant). */
    public static final String ANY = "*";

    public ConsumerRegistrationRequest {
        AggregateIds.require("consumerId", consumerId);
        if (ANY.equals(catalog)) {
            if (!ANY.equals(tenant)) {
                StreamId.requirePart("tenant", tenant);
            }
            if (epoch != null) {
                throw RetentionRules.invalid("a subscription (catalog \"*\") is registered in every stream's current "
                        + "epoch: omit epoch");
            }
        } else {
            new StreamId(tenant, catalog);
            RetentionRules.epoch(epoch);
        }
        RetentionRules.deliveryUrl(deliveryUrl);
    }

    /** Whether this registers a subscription by pattern rather than one stream. */
    public boolean subscription() {
        return ANY.equals(catalog);
    }

    /** @return the one stream registered; not for a {@link #subscription()} */
    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }
}
