package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Assigns gapless positions under a held cursor lock and turns each event into its stored wire text and chain
 * digest. One instance lives for one physical transaction.
 */
final class EventAppender {

    private final ObjectMapper json;
    private final Cursor start;
    private final Instant occurredAt;
    private long position;
    private String digest;

    EventAppender(ObjectMapper json, Cursor locked, Instant occurredAt) {
        this.json = json;
        this.start = locked;
        this.occurredAt = occurredAt;
        this.position = locked.position();
        this.digest = locked.chainDigest();
    }

    long epoch() {
        return start.epoch();
    }

    /** The position the next {@link #append} will take. */
    long nextPosition() {
        return position + 1;
    }

    /** The cursor after everything appended so far. */
    Cursor cursor() {
        return new Cursor(start.stream(), start.epoch(), position, digest);
    }

    /** Takes the next position for one event and builds its row. */
    OutboxRow append(UUID eventId, UUID transactionId, int ordinal, int count, String type, String aggregateType,
            String aggregateId, int revision, List<Dependency> dependsOn, JsonNode payload) {
        long p = ++position;
        ObjectNode e = json.createObjectNode();
        e.put("tenant", start.stream().tenant());
        e.put("catalog", start.stream().catalog());
        e.put("epoch", start.epoch());
        e.put("position", p);
        e.put("eventId", eventId.toString());
        e.put("transactionId", transactionId.toString());
        e.put("transactionOrdinal", ordinal);
        e.put("transactionCount", count);
        e.put("type", type);
        e.put("aggregateType", aggregateType);
        e.put("aggregateId", aggregateId);
        e.put("revision", revision);
        ArrayNode deps = e.putArray("dependsOn");
        for (Dependency d : dependsOn) {
            deps.addObject().put("aggregateType", d.aggregateType()).put("aggregateId", d.aggregateId())
                    .put("revision", d.revision());
        }
        e.put("occurredAt", occurredAt.toString());
        e.set("payload", payload);
        String wire = json.writeValueAsString(e);
        requireDeliverable(wire, aggregateType, aggregateId);
        digest = ChainDigest.next(digest, wire);
        return new OutboxRow(start.epoch(), p, eventId, transactionId, ordinal, count, type, aggregateType,
                aggregateId, revision, wire, digest, occurredAt);
    }

    /**
     * The door of {@link JsonLimits#MAX_EVENT_WIRE_BYTES}: an event the product could not take in one delivery is
     * refused before the position is taken for good (the transaction rolls back, 400 {@code INVALID_BODY}).
     */
    static void requireDeliverable(String wire, String aggregateType, String aggregateId) {
        // a char is at most 3 UTF-8 bytes: only long wires need counting
        if ((long) wire.length() * 3 <= JsonLimits.MAX_EVENT_WIRE_BYTES) {
            return;
        }
        long bytes = JsonLimits.utf8Length(wire);
        if (bytes > JsonLimits.MAX_EVENT_WIRE_BYTES) {
            throw new ApiException(ProblemCode.INVALID_BODY, "the event of %s %s would be %d bytes on the wire, over "
                    .formatted(aggregateType, aggregateId, bytes) + "the limit of " + JsonLimits.MAX_EVENT_WIRE_BYTES
                    + " bytes (envelope included)");
        }
    }

    static UUID newEventId() {
        return UuidV7.next();
    }

    /** A revision of another aggregate (or an earlier one of the same) that must be applied first. */
    record Dependency(String aggregateType, String aggregateId, int revision) {
    }
}
