package com.acme.catalog.contracts.export;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/exports/{exportId}} (and the 202 answer of {@code POST /v1/exports}): where the export stands.
 * {@code cursor} and {@code chainDigest} appear once its snapshot was read, {@code manifestKey} once READY,
 * {@code error} once FAILED or ABORTED, {@code finishedAt} once ended; absent before. {@code permanent} comes with a
 * FAILED export's {@code error}: true when the failure is about the stream's data (its chain or stored rows do not
 * verify), so a new export would fail the same way; false when it says nothing about the data (the database or the
 * object store out of reach, the instance stopped, the queue full), so a new export may succeed. Absent before FAILED
 * and from a resolver that predates it (a client then treats it as false).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ExportView(UUID exportId, ExportStatus status, String tenant, String catalog, long epoch,
        UUID leaseId, Long cursor, String chainDigest, String manifestKey, String error, Progress progress,
        String requestedBy, Instant createdAt, Instant finishedAt, Boolean permanent) {

    public ExportView {
        Objects.requireNonNull(exportId, "exportId");
        Objects.requireNonNull(status, "status");
    }

    /** @return whether the export FAILED for a reason a new export would meet again (see the class comment) */
    public boolean failedPermanently() {
        return status == ExportStatus.FAILED && Boolean.TRUE.equals(permanent);
    }

    /** How far the export's writer got, and when it last said so. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Progress(String phase, long rowsWritten, long bytesWritten, Instant heartbeatAt) {
    }
}
