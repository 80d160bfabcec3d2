package com.acme.catalog.contracts.review;

import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The answer to a recorded decision. An ACCEPT carries the epoch and the positions of the logical transaction that
 * applied it (its {@code DecisionRecorded} event first, then the state events); a REJECT has none.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DecisionReceipt(UUID decisionId, Verdict decision, Long epoch, Long firstPosition,
        Long lastPosition) {

    public DecisionReceipt {
        Objects.requireNonNull(decisionId, "decisionId");
        Objects.requireNonNull(decision, "decision");
    }
}
