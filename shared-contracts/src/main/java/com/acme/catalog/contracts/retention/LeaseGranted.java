package com.acme.catalog.contracts.retention;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * {@code POST /v1/retention/leases} answer (201): the lease, the position it pins (the cursor when it was taken)
 * and when it expires unless renewed.
 */
public record LeaseGranted(UUID leaseId, long pin, Instant expiresAt, String tenant, String catalog, long epoch,
        String owner) {

    public LeaseGranted {
        Objects.requireNonNull(leaseId, "leaseId"); // the product renews and releases the lease by it
    }
}
