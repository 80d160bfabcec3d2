package com.acme.catalog.contracts.export;

import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/exports}: export the stream's current accepted state at the position the lease pins (the lease
 * must be alive and of the stream's current epoch). A record that exists is valid: a missing or non-string field
 * 400 {@code INVALID_BODY}, a malformed id 400 {@code INVALID_ID}.
 */
public record ExportRequest(@JsonDeserialize(using = StrictJson.Text.class) String tenant,
        @JsonDeserialize(using = StrictJson.Text.class) String catalog,
        @JsonDeserialize(using = StrictJson.Text.class) String leaseId) {

    public ExportRequest {
        required("tenant", tenant);
        required("catalog", catalog);
        new StreamId(tenant, catalog);
        required("leaseId", leaseId);
        uuid("leaseId", leaseId);
    }

    public ExportRequest(StreamId stream, UUID leaseId) {
        this(stream.tenant(), stream.catalog(), leaseId.toString());
    }

    public StreamId stream() {
        return new StreamId(tenant, catalog);
    }

    public UUID lease() {
        return uuid("leaseId", leaseId);
    }

    /** @throws InvalidIdException (400 {@code INVALID_ID}) unless {@code value} is a 36-character UUID */
    public static UUID uuid(String what, String value) {
        if (value == null || value.length() != 36) {
            throw new InvalidIdException(what, value, "must be a UUID");
        }
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(what, value, "must be a UUID");
        }
    }

    private static void required(String field, String value) {
        if (value == null) {
            throw new ApiException(ProblemCode.INVALID_BODY, field + " is required and must be a string");
        }
    }
}
