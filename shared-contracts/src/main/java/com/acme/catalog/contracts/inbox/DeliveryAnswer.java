package com.acme.catalog.contracts.inbox;

import java.util.List;

/**
 * The answer of {@code POST /v1/inbox/events}: every delivered event's outcome, in delivery order, and the
 * generation's cursor after the delivery committed.
 *
 * @param contiguousPosition the position through which the stream's events are all processed (none missing)
 * @param epoch              the epoch of that position
 */
public record DeliveryAnswer(List<DeliveryResult> results, long contiguousPosition, long epoch) {

    public DeliveryAnswer {
        results = List.copyOf(results);
    }
}
