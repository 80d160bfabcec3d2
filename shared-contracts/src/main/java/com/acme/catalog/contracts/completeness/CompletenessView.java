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
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompletenessView(long epoch, long verifiedThrough,
        @JsonInclude(JsonInclude.Include.ALWAYS) Instant lastSuccessfulVerification, long observedSourceBoundary,
        String state, String reason, Worker worker) {

    public CompletenessView {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(worker, "worker");
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
