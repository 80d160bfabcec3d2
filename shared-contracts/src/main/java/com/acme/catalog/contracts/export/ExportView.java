package com.acme.catalog.contracts.export;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/exports/{exportId}} (and the 202 answer of {@code POST /v1/exports}): where the export stands.
 * {@code cursor} and {@code chainDigest} appear once its snapshot was read, {@code manifestKey} once READY,
 * {@code error} once FAILED or ABORTED, {@code finishedAt} once ended; absent before.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ExportView(UUID exportId, ExportStatus status, String tenant, String catalog, long epoch,
        UUID leaseId, Long cursor, String chainDigest, String manifestKey, String error, Progress progress,
        String requestedBy, Instant createdAt, Instant finishedAt) {

    public ExportView {
        Objects.requireNonNull(exportId, "exportId");
        Objects.requireNonNull(status, "status");
    }

    /** How far the export's writer got, and when it last said so. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Progress(String phase, long rowsWritten, long bytesWritten, Instant heartbeatAt) {
    }
}
