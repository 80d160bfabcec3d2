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
 * @param progress          counts, rates and estimates of the running phase and of the whole rebuild (docs/rebuild.md
 *                          "Progress"); absent when nothing is known of them
 * @param reason            why the rebuild was started, a stable code ({@code OPERATOR}, {@code RECOVERY},
 *                          {@code PROJECTION_UPGRADE}); absent for a rebuild from before reasons were recorded
 * @param projectionVersion the projection version the rebuild builds its generation with
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
        @JsonInclude(JsonInclude.Include.ALWAYS) Long target, long loadedRows, long appliedEvents, String error,
        Map<String, Long> phaseMillis, Map<String, Long> stepMillis, String errorCode, Boolean waitingToRetry,
        String retryCode, String retryReason, Instant nextRetryAt, Instant retryingSince, Instant retryBudgetEndsAt,
        Progress progress, String reason, Integer projectionVersion) {

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

    /** The fields before {@code progress}. */
    public RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
            Long target, long loadedRows, long appliedEvents, String error, Map<String, Long> phaseMillis,
            Map<String, Long> stepMillis, String errorCode, Boolean waitingToRetry, String retryCode,
            String retryReason, Instant nextRetryAt, Instant retryingSince, Instant retryBudgetEndsAt) {
        this(rebuildId, tenant, catalog, phase, attempt, cursor, target, loadedRows, appliedEvents, error, phaseMillis,
                stepMillis, errorCode, waitingToRetry, retryCode, retryReason, nextRetryAt, retryingSince,
                retryBudgetEndsAt, null);
    }

    /** The fields before {@code reason}. */
    public RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
            Long target, long loadedRows, long appliedEvents, String error, Map<String, Long> phaseMillis,
            Map<String, Long> stepMillis, String errorCode, Boolean waitingToRetry, String retryCode,
            String retryReason, Instant nextRetryAt, Instant retryingSince, Instant retryBudgetEndsAt,
            Progress progress) {
        this(rebuildId, tenant, catalog, phase, attempt, cursor, target, loadedRows, appliedEvents, error, phaseMillis,
                stepMillis, errorCode, waitingToRetry, retryCode, retryReason, nextRetryAt, retryingSince,
                retryBudgetEndsAt, progress, null, null);
    }

    /**
     * Where the rebuild's attempt stands: the running phase's count ({@code unit}, {@code done}, {@code total},
     * {@code ratePerSecond}, {@code phaseEta}; absent in a phase that counts nothing), the load's and the catch-up's
     * counts, and the whole rebuild's estimate. Durations are ISO-8601 ({@code PT42S}); an estimate is absent when
     * it cannot be made yet, never guessed.
     *
     * @param phase         the phase the figures are of
     * @param unit          {@code rows} (LOADING) or {@code events} (CATCHING_UP)
     * @param done          rows copied or events applied so far by this attempt
     * @param total         rows the export's manifest holds, or events up to the resolver's head as last seen
     * @param ratePerSecond {@code unit}s per second over the last few seconds
     * @param phaseEta      time left to reach {@code total} at that rate
     * @param eta           time left for the whole rebuild (docs/rebuild.md says how it is estimated)
     * @param load          the load's count in rows, once the load started
     * @param catchUp       the catch-up's count in events, once it started
     * @param head          the resolver's head as the catch-up last saw it
     * @param asOf          when the figures were computed
     * @param live          true when read from the running attempt on the instance answering; false when only the
     *                      rebuild's row was read (another instance runs it, or it ended long ago): then counts only
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(String phase, String unit, Long done, Long total, Double ratePerSecond, String phaseEta,
            String eta, Count load, Count catchUp, Long head, Instant asOf, boolean live) {

        public Progress {
            Objects.requireNonNull(phase, "phase");
        }
    }

    /**
     * One counted part of a rebuild (the load, the catch-up).
     *
     * @param unit          {@code rows} or {@code events}
     * @param done          how many so far
     * @param total         how many in all, as known now; absent when unknown
     * @param ratePerSecond over the last few seconds while it runs; absent when unknown or finished
     * @param eta           time left for it at that rate (ISO-8601); {@code PT0S} once done reaches total
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Count(String unit, long done, Long total, Double ratePerSecond, String eta) {
    }
}
