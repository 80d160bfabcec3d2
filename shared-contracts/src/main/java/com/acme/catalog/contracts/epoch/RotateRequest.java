package com.acme.catalog.contracts.epoch;

import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/** {@code POST /v1/epochs/{tenant}/{catalog}/rotate} body: why a new epoch is issued (kept in the history). */
public record RotateRequest(@JsonDeserialize(using = StrictJson.Text.class) String reason) {

    /** Longest reason kept. */
    public static final int MAX_REASON_LENGTH = 500;

    public RotateRequest {
        if (reason == null || reason.isBlank() || reason.length() > MAX_REASON_LENGTH
                || reason.chars().anyMatch(c -> Character.isISOControl(c))) {
            throw new IllegalArgumentException("reason must be 1-" + MAX_REASON_LENGTH + " printable characters");
        }
    }
}
