package com.acme.catalog.contracts.epoch;

import java.time.Instant;
import java.util.Objects;

/**
 * One event of an old epoch that reached the product, as {@code GET /v1/audit/old-epoch-deliveries} lists it.
 *
 * @param source {@code DELIVERY}, {@code PAGE}, {@code EXPORT} or {@code PARKED}: how it reached the product
 */
public record OldEpochDelivery(String tenant, String catalog, long epoch, long position, String source,
        Instant receivedAt) {

    public OldEpochDelivery {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(receivedAt, "receivedAt");
    }
}
