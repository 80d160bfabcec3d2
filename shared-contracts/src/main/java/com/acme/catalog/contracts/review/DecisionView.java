package com.acme.catalog.contracts.review;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A recorded decision, as part of its case. {@code artifactIds} are the artifacts it cites; an ACCEPT's
 * {@code transactionId} is the logical transaction whose revisions cite the decision.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DecisionView(UUID decisionId, Verdict decision, String reviewer, String reason, String decidedBy,
        Instant decidedAt, Long epoch, Long firstPosition, Long lastPosition, UUID transactionId,
        List<UUID> artifactIds) {

    public DecisionView {
        Objects.requireNonNull(decisionId, "decisionId");
        artifactIds = List.copyOf(artifactIds);
    }
}
