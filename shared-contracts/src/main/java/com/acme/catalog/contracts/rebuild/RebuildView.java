package com.acme.catalog.contracts.rebuild;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/rebuilds/{rebuildId}}: where a rebuild stands.
 *
 * @param phase             the rebuild's phase name ({@code RebuildPhase} of the product)
 * @param target            the position the rebuild catches up to; null (present) until known
 * @param error             {@code CODE: sentence}: why it failed or was aborted, or why its last attempt restarted;
 *                          absent otherwise; never an exception's class name
 * @param errorCode         the stable code {@code error} starts with; absent with it
 * @param phaseMillis       milliseconds by phase name, the running phase's time so far included; absent when the
 *                          rebuild's row has none to tell
 * @param stepMillis        milliseconds by step name; absent with {@code phaseMillis}
 * @param waitingToRetry    true while the rebuild waits, after a failure that says nothing about the data, to start
 *                          its next attempt ({@code attempt} is the one about to run) at {@code nextRetryAt}; false
 *                          once it retried and does not wait now; absent for a rebuild that never retried
 * @param retryCode         the stable code of why it waits (or last waited); absent before its first retry
 * @param retryReason       {@code CODE: sentence} of why it waits (or last waited); absent with {@code retryCode}
 * @param nextRetryAt       when the next attempt starts; present only while {@code waitingToRetry}
 * @param retryingSince     the first failure it retried; its retry budget counts from there
 * @param retryBudgetEndsAt after this a failure that would be retried ends the rebuild FAILED instead
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
        @JsonInclude(JsonInclude.Include.ALWAYS) Long target, long loadedRows, long appliedEvents, String error,
        Map<String, Long> phaseMillis, Map<String, Long> stepMillis, String errorCode, Boolean waitingToRetry,
        String retryCode, String retryReason, Instant nextRetryAt, Instant retryingSince, Instant retryBudgetEndsAt) {

    public RebuildView {
        Objects.requireNonNull(rebuildId, "rebuildId");
        Objects.requireNonNull(phase, "phase");
    }

    /** A rebuild that never waited to retry: the fields before the retry budget. */
    public RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
            Long target, long loadedRows, long appliedEvents, String error, Map<String, Long> phaseMillis,
            Map<String, Long> stepMillis) {
        this(rebuildId, tenant, catalog, phase, attempt, cursor, target, loadedRows, appliedEvents, error, phaseMillis,
                stepMillis, null, null, null, null, null, null, null);
    }
}
