package com.acme.catalog.contracts.epoch;

import java.util.List;

/** {@code GET /v1/audit/old-epoch-deliveries?tenant=&catalog=&limit=}: the audited deliveries, newest first. */
public record OldEpochDeliveries(List<OldEpochDelivery> deliveries) {

    public OldEpochDeliveries {
        deliveries = List.copyOf(deliveries);
    }
}
