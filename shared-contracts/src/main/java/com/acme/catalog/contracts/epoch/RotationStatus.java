package com.acme.catalog.contracts.epoch;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/epochs/rotations/{rotationId}}: a fleet rotation's progress. {@code streams} is how many streams the
 * scope held when the job was created; {@code rotated} + {@code failed} of them are finished. {@code DONE}: every
 * stream rotated; {@code FAILED}: the job ended with at least one stream not rotated ({@code failed}, listed in
 * {@code errors}, or left when the job was stopped, said in {@code error}).
 *
 * @param status        {@code RUNNING}, {@code DONE} or {@code FAILED}
 * @param finishedAt    when it ended; absent while {@code RUNNING}
 * @param ratePerSecond streams finished per second since the job started
 * @param etaSeconds    seconds until the rest is finished at that rate; absent when not {@code RUNNING} or nothing
 *                      finished yet
 * @param errors        the first {@value #MAX_ERRORS} streams that failed
 * @param error         why the job stopped before every stream was finished (maintenance turned off with
 *                      {@code force}); absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RotationStatus(UUID rotationId, String status, String reason, RotationScope scope, long streams,
        long rotated, long failed, Instant startedAt, Instant finishedAt, double ratePerSecond, Long etaSeconds,
        List<RotationFailure> errors, String error) {

    /** Most failures listed. */
    public static final int MAX_ERRORS = 100;

    public RotationStatus {
        Objects.requireNonNull(rotationId, "rotationId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(startedAt, "startedAt");
        errors = List.copyOf(errors);
    }
}
