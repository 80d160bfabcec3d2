package com.acme.catalog.contracts.retention;

import java.time.Instant;

/**
 * {@code POST /v1/retention/consumers} answer (201): the registration as stored. {@code deliveryUrl} is null (and
 * written as null) for a consumer that pulls.
 */
public record ConsumerRegistered(String consumerId, long durablePosition, String tenant, String catalog, long epoch,
        String deliveryUrl, Instant registeredAt) {
}
