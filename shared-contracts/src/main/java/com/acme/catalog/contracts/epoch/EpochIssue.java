package com.acme.catalog.contracts.epoch;

import java.time.Instant;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One epoch of a stream's permanent history in the control store: when, why and by whom it was issued, and where it
 * starts from ({@link StartsFrom}).
 *
 * @param startsFrom the position and chain digest of the fenced epoch that this one starts from; null (written as
 *                   {@code null}) where unknown: a stream's first epoch, and epochs issued before rotations recorded
 *                   it
 */
public record EpochIssue(long epoch, Instant issuedAt, String reason, String issuer,
        @JsonInclude(JsonInclude.Include.ALWAYS) StartsFrom startsFrom) {

    public EpochIssue {
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1");
        }
        Objects.requireNonNull(issuedAt, "issuedAt");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(issuer, "issuer");
    }

    /** An epoch whose start is not known. */
    public EpochIssue(long epoch, Instant issuedAt, String reason, String issuer) {
        this(epoch, issuedAt, reason, issuer, null);
    }
}
