package com.acme.catalog.contracts.review;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.JsonNode;

/** A review case ({@code GET …/review-cases/{caseId}} and the list); {@code decision} once it is DECIDED. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReviewCaseView(UUID caseId, String tenant, String catalog, CaseStatus status, List<UUID> claimIds,
        List<JsonNode> changes, String createdBy, Instant createdAt, DecisionView decision) {

    public ReviewCaseView {
        Objects.requireNonNull(caseId, "caseId");
        Objects.requireNonNull(status, "status");
        claimIds = List.copyOf(claimIds);
        changes = List.copyOf(changes);
    }
}
