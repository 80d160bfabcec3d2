package com.acme.catalog.contracts.retention;

import java.time.Duration;

import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/** {@code POST /v1/retention/leases/{leaseId}/renew}: keep the lease for {@code ttlSeconds} from now. */
public record LeaseRenewal(@JsonDeserialize(using = StrictJson.IntegralOrNull.class) Long ttlSeconds) {

    public LeaseRenewal {
        RetentionRules.ttlSeconds(ttlSeconds);
    }

    public Duration ttl() {
        return Duration.ofSeconds(ttlSeconds);
    }
}
