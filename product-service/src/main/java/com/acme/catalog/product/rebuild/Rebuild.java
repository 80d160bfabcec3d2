package com.acme.catalog.product.rebuild;

import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

/** One rebuild as its row holds it. */
public record Rebuild(UUID rebuildId, StreamId stream, RebuildPhase phase, int attempt, Long generationId,
        long cursor, Long target, long loadedRows, long appliedEvents, String error, java.time.Instant updatedAt) {
}
