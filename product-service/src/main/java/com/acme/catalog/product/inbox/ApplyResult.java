package com.acme.catalog.product.inbox;

import java.util.List;

import com.acme.catalog.product.projection.GenerationCursor;

/**
 * The generation's cursor after applying a list of events (to be saved by the caller in the same transaction),
 * and the outcome of each event in the order given.
 */
public record ApplyResult(GenerationCursor cursor, List<Outcome> outcomes) {

    public ApplyResult {
        outcomes = List.copyOf(outcomes);
    }
}
