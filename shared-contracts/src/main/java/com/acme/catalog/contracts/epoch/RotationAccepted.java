package com.acme.catalog.contracts.epoch;

import java.util.Objects;
import java.util.UUID;

/** {@code POST /v1/epochs/rotations} answer (202): the job rotating the scope, and its status now. */
public record RotationAccepted(UUID rotationId, String status) {

    public RotationAccepted {
        Objects.requireNonNull(rotationId, "rotationId");
        Objects.requireNonNull(status, "status");
    }
}
