package com.acme.catalog.contracts.review;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.BodyRules;

import tools.jackson.databind.JsonNode;

/**
 * {@code POST /v1/streams/{tenant}/{catalog}/review-cases}: claims of the stream to review and the changes an
 * ACCEPT would apply, each exactly as a change of {@code POST …/transactions} ({@code op} and its fields; the
 * resolver validates them as it validates a transaction).
 */
public record ReviewCaseRequest(List<UUID> claimIds, List<JsonNode> changes) {

    /** Most claims one case may cite. */
    public static final int MAX_CLAIMS = 1000;
    /** Most changes one case may propose (as in one transaction). */
    public static final int MAX_CHANGES = 1000;

    public ReviewCaseRequest {
        claimIds = BodyRules.distinctList("claimIds", claimIds, 1, MAX_CLAIMS);
        changes = BodyRules.list("changes", changes, 1, MAX_CHANGES);
    }
}
