package com.acme.catalog.contracts.epoch;

import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/epochs/rotations} body: why (kept in every rotated stream's epoch history, 1-500 printable
 * characters, as for a single rotation) and which streams ({@link RotationScope}).
 */
public record RotationRequest(@JsonDeserialize(using = StrictJson.Text.class) String reason, RotationScope scope) {

    public RotationRequest {
        new RotateRequest(reason);
        if (scope == null) {
            throw new IllegalArgumentException("scope is required: {\"all\":true}, {\"tenant\":\"…\"} or "
                    + "{\"streams\":[…]}");
        }
    }
}
