package com.acme.catalog.contracts.epoch;

import java.time.Instant;
import java.util.Objects;

/** One epoch of a stream's permanent history in the control store: when, why and by whom it was issued. */
public record EpochIssue(long epoch, Instant issuedAt, String reason, String issuer) {

    public EpochIssue {
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1");
        }
        Objects.requireNonNull(issuedAt, "issuedAt");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(issuer, "issuer");
    }
}
