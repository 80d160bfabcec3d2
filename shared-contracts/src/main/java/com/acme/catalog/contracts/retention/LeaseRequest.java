package com.acme.catalog.contracts.retention;

import java.time.Duration;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/retention/leases}: pin retention of one epoch of a stream at its cursor for {@code ttlSeconds}
 * (renewable), for {@code owner} (1-200 printable characters, for operators). A record that exists is valid (the
 * configured longest ttl is checked by the resolver).
 */
public record LeaseRequest(
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String tenant,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String catalog,
        @JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long epoch,
        @JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long ttlSeconds,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String owner) {

    /** Longest owner text. */
    public static final int MAX_OWNER_LENGTH = 200;

    public LeaseRequest {
        new StreamId(tenant, catalog);
        RetentionRules.epoch(epoch);
        RetentionRules.ttlSeconds(ttlSeconds);
        requireOwner(owner);
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }

    public Duration ttl() {
        return Duration.ofSeconds(ttlSeconds);
    }

    /** @throws ApiException 400 {@code INVALID_BODY} unless the owner is 1-200 printable characters */
    public static void requireOwner(String owner) {
        if (owner == null || owner.isBlank() || owner.length() > MAX_OWNER_LENGTH
                || owner.chars().anyMatch(Character::isISOControl)) {
            throw new ApiException(ProblemCode.INVALID_BODY,
                    "owner must be 1-" + MAX_OWNER_LENGTH + " printable characters");
        }
    }
}
