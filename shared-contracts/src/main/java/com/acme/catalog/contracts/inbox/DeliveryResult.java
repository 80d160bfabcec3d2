package com.acme.catalog.contracts.inbox;

import java.util.Objects;

/**
 * One delivered event's outcome, in the order the delivery carried it.
 *
 * @param outcome {@code APPLIED}, {@code DUPLICATE}, {@code PARKED}, {@code IGNORED} or {@code IGNORED_OLD_EPOCH}
 *                (the product's {@code Outcome})
 */
public record DeliveryResult(long position, long epoch, String outcome) {

    public DeliveryResult {
        Objects.requireNonNull(outcome, "outcome");
    }
}
