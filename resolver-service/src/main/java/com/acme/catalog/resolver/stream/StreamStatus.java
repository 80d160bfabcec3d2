package com.acme.catalog.resolver.stream;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * {@code GET /v1/streams/{tenant}/{catalog}}: one stream as {@code GET /v1/streams} lists it, plus what blocks its
 * writes: a bootstrap import's fence (while its session holds the import lock) and a move to another resolver
 * database. Every member is present; the nullable ones are null when there is nothing to say.
 */
@Schema(description = "A stream: its open epoch and cursor, and what blocks its writes")
public record StreamStatus(String tenant, String catalog, long epoch, long cursor, String chainDigest,
        long prunedThrough,
        @Schema(types = {"integer", "null"}, description = "the control store's current epoch; null when it could "
                + "not be read") Long currentEpoch,
        boolean rolledBack,
        @Schema(types = {"string", "null"}, format = "date-time", description = "when the rollback was found; null "
                + "unless rolledBack") Instant rolledBackAt,
        @Schema(types = {"object", "null"}, description = "the import fence while a bootstrap import holds it "
                + "(writes answer 409 IMPORT_IN_PROGRESS, the relay holds the stream); null otherwise")
        ImportFence importFence,
        @Schema(types = {"object", "null"}, description = "a move to another resolver database (MOVING: writes answer "
                + "409 STREAM_MOVING; MOVED: retired here, writes answer 410 STREAM_MOVED); null otherwise")
        Move move) {

    /**
     * A held import fence: since when, who took it (the token identity of a REST import, {@code command-line} for
     * the jar's mode) and the backend pid of the database session whose import lock holds it (the fence ends with
     * that session).
     */
    public record ImportFence(Instant since, String by, int sessionPid) {
    }

    /** A move: {@code MOVING} or {@code MOVED}, its target (where the stream lives once moved), since, why, who. */
    public record Move(String state, String target, Instant since, String reason, String by) {
    }
}
