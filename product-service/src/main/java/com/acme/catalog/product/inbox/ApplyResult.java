package com.acme.catalog.product.inbox;

import java.util.List;

import com.acme.catalog.product.projection.GenerationCursor;

/**
 * The generation's cursor after applying a list of events (already saved in the caller's transaction),
 * the outcome of each event in the order given, and how many events the generation holds now (PENDING and
 * PARKED).
 */
public record ApplyResult(GenerationCursor cursor, List<Outcome> outcomes, long heldEvents) {

    public ApplyResult {
        outcomes = List.copyOf(outcomes);
    }
}
