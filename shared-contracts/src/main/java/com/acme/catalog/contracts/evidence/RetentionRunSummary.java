package com.acme.catalog.contracts.evidence;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What one evidence retention run did ({@code POST /v1/evidence-retention/run}, and the status's last run).
 *
 * @param tenant         the tenant it was limited to; absent: every tenant
 * @param kind           {@code SCHEDULED} or {@code REQUESTED}
 * @param outcome        {@code COMPLETED} or {@code FAILED} (then {@code error} says why; what it did is counted)
 * @param checked        artifacts whose object was looked up in the store
 * @param newlyMissing   artifacts flagged missing by this run
 * @param reappeared     flagged artifacts whose object was found again (flag cleared)
 * @param missing        artifacts flagged missing after the run (in its scope)
 * @param candidates     unreferenced artifacts past the window when the run looked
 * @param keptReferenced candidates found referenced (or active again) under their lock, so kept
 * @param expired        artifacts expired by this run (rows with their runs and claims, then the object)
 * @param expiredBytes   their bytes
 * @param objectsDeleted objects deleted (the expired ones and earlier expiries whose delete had not completed)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RetentionRunSummary(UUID runId, String tenant, String kind, Instant startedAt, Instant finishedAt,
        String outcome, long checked, long newlyMissing, long reappeared, long missing, long candidates,
        long keptReferenced, long expired, long expiredBytes, long objectsDeleted, String error) {

    public RetentionRunSummary {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(outcome, "outcome");
    }
}
