package com.acme.catalog.resolver.retention;

import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

/** The lease is expired or released (410 {@code LEASE_EXPIRED}); the caller restarts from a new lease. */
public class LeaseExpiredException extends ApiException {

    private final UUID leaseId;

    public LeaseExpiredException(UUID leaseId, String message) {
        super(ProblemCode.LEASE_EXPIRED, message);
        this.leaseId = leaseId;
    }

    public UUID leaseId() {
        return leaseId;
    }
}
