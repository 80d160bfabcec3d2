package com.acme.catalog.contracts.completeness;

import java.time.Instant;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/projection-completeness?tenant=&catalog=}: how far the product's copy of the stream is verified.
 *
 * @param lastSuccessfulVerification when a recovery cycle last verified the copy; null (present) if never
 * @param state                      {@code CURRENT}, {@code CATCHING_UP}, {@code RETRYING} or {@code BLOCKED}
 * @param reason                     why it is not current; absent when there is none
 * @param projection                 the projection versions: the serving generation's, a building generation's
 *                                   and the answering instance's code version; absent when not known
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompletenessView(long epoch, long verifiedThrough,
        @JsonInclude(JsonInclude.Include.ALWAYS) Instant lastSuccessfulVerification, long observedSourceBoundary,
        String state, String reason, Worker worker, Projection projection) {

    public CompletenessView {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(worker, "worker");
    }

    /** The fields before {@code projection}. */
    public CompletenessView(long epoch, long verifiedThrough, Instant lastSuccessfulVerification,
            long observedSourceBoundary, String state, String reason, Worker worker) {
        this(epoch, verifiedThrough, lastSuccessfulVerification, observedSourceBoundary, state, reason, worker, null);
    }

    /**
     * Projection versions of the stream (docs/runbooks/projection-upgrade.md).
     *
     * @param servingVersion  the version the serving generation was built with; absent without one
     * @param buildingVersion the version a generation being built for the stream has; absent when none is built
     * @param codeVersion     the projection version of the product instance that answers
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Projection(Integer servingVersion, Integer buildingVersion, int codeVersion) {
    }

    /**
     * The recovery worker of the stream.
     *
     * @param lastHeartbeat its last heartbeat; null (present) if it never beat
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Worker(boolean alive, Instant lastHeartbeat) {
    }
}
