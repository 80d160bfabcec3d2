package com.acme.catalog.contracts.epoch;

import java.util.Objects;

/**
 * A stream a fleet rotation could not rotate, and why: a sentence that starts with a stable code
 * ({@code EPOCH_MISMATCH: …}, {@code INTERNAL: …}).
 */
public record RotationFailure(String tenant, String catalog, String error) {

    public RotationFailure {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(error, "error");
    }
}
