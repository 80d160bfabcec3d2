package com.acme.catalog.contracts.epoch;

/** {@code POST /v1/epochs/{tenant}/{catalog}/rotate} answer: the epoch now open, at position 0. */
public record RotateResponse(long epoch) {

    public RotateResponse {
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1");
        }
    }
}
