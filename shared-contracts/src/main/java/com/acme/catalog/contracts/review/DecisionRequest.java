package com.acme.catalog.contracts.review;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.BodyRules;

/**
 * {@code POST /v1/streams/{tenant}/{catalog}/review-cases/{caseId}/decisions}. {@code evidence} optionally names
 * further artifacts of the tenant the reviewer consulted; the decision cites them besides the artifacts of the
 * case's claims.
 */
public record DecisionRequest(Verdict decision, String reviewer, String reason, List<UUID> evidence) {

    /** Most further artifacts one decision may cite. */
    public static final int MAX_EVIDENCE = 100;

    public DecisionRequest {
        BodyRules.present("decision", decision);
        BodyRules.text("reviewer", reviewer, 256);
        BodyRules.text("reason", reason, 4096);
        evidence = evidence == null ? List.of() : BodyRules.distinctList("evidence", evidence, 0, MAX_EVIDENCE);
    }
}
