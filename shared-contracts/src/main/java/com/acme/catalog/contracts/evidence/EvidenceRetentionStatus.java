package com.acme.catalog.contracts.evidence;

import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/tenants/{tenant}/evidence-retention}: the tenant's artifacts by retention state.
 *
 * @param artifacts    artifacts not expired (present or missing)
 * @param referenced   of those, the ones something keeps (see {@code referencedBy})
 * @param unreferenced {@code artifacts - referenced}: they expire once the window has passed since their last
 *                     activity
 * @param expired      expired artifacts (tombstones)
 * @param missing      artifacts flagged missing from the store, oldest flag first (at most 1000 listed)
 * @param referencedBy how many artifacts each kind of reference keeps (one artifact may count in several)
 * @param window       the expiry window (ISO-8601 duration)
 * @param lastRun      the last retention run that covered this tenant; absent before the first
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EvidenceRetentionStatus(String tenant, long artifacts, long referenced, long unreferenced,
        long expired, List<MissingArtifact> missing, ReferenceCounts referencedBy, String window,
        RetentionRunSummary lastRun) {

    public EvidenceRetentionStatus {
        Objects.requireNonNull(tenant, "tenant");
        missing = List.copyOf(missing);
    }

    /**
     * @param acceptedFacts artifacts cited by a decision that made accepted revisions
     * @param decisions     artifacts cited by any decision
     * @param openCases     artifacts with a claim in an open case
     * @param fixtures      artifacts marked as regression fixtures
     */
    public record ReferenceCounts(long acceptedFacts, long decisions, long openCases, long fixtures) {
    }
}
