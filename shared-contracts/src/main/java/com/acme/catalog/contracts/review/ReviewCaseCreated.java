package com.acme.catalog.contracts.review;

import java.util.Objects;
import java.util.UUID;

/** The answer to a new review case. */
public record ReviewCaseCreated(UUID caseId, CaseStatus status) {

    public ReviewCaseCreated {
        Objects.requireNonNull(caseId, "caseId");
        Objects.requireNonNull(status, "status");
    }
}
