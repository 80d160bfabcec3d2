package com.acme.catalog.contracts.epoch;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/epochs/{tenant}/{catalog}}: the stream's current epoch, the resolver's committed high-water mark in
 * it as last recorded in the control store (it lags the cursor: recording is batched), and every epoch ever issued,
 * oldest first.
 *
 * @param issuedAt when the current epoch was issued; null (absent) for a stream nobody has written yet, which is in
 *                 epoch 1, the epoch its first write issues
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EpochStatus(long epoch, Instant issuedAt, long highWaterMark, List<EpochIssue> history) {

    public EpochStatus {
        if (epoch < 1 || highWaterMark < 0) {
            throw new IllegalArgumentException("epoch must be >= 1 and highWaterMark >= 0");
        }
        history = List.copyOf(history);
    }
}
