package com.acme.catalog.contracts.retention;

import java.time.Instant;

/** {@code POST /v1/retention/leases/{leaseId}/renew} answer: when the lease now expires. */
public record LeaseRenewed(Instant expiresAt) {
}
