package com.acme.catalog.product.support;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.AggregateRevision;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes events of one (stream, epoch) exactly as the resolver's {@code EventAppender} does: the same members in
 * the same order, serialized once to the stored wire, with the chain digest over it. Ids and timestamps come from
 * the given {@link Random}, so a seed reproduces the same bytes.
 */
public final class ChainWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final StreamId stream;
    private final long epoch;
    private final Random random;
    private long position;
    private String digest = ChainDigest.ZERO;
    private Instant clock = Instant.parse("2026-11-30T10:00:00Z");

    /** An event with its position, stored wire and chain digest. */
    public record Event(Change change, long epoch, long position, String wire, String chainDigest) {
        /** The event as deliveries carry it: the wire with {@code ,"chainDigest":"…"} appended. */
        public String delivered() {
            return EventWire.withDigest(wire, chainDigest);
        }

        /** The same wire with a wrong digest. */
        public String deliveredWithBadDigest() {
            return EventWire.withDigest(wire, ChainDigest.next(chainDigest, "tampered"));
        }
    }

    public ChainWriter(StreamId stream, long epoch, Random random) {
        this.stream = stream;
        this.epoch = epoch;
        this.random = random;
    }

    /** Appends changes as logical transactions of 1-3 changes each, like the resolver's coalesced writes. */
    public List<Event> appendAll(List<Change> changes) {
        List<Event> out = new ArrayList<>(changes.size());
        int i = 0;
        while (i < changes.size()) {
            int count = Math.min(changes.size() - i, 1 + random.nextInt(3));
            out.addAll(transaction(changes.subList(i, i + count)));
            i += count;
        }
        return out;
    }

    /** Appends one logical transaction. */
    public List<Event> transaction(List<Change> changes) {
        UUID transactionId = uuid();
        clock = clock.plusMillis(1 + random.nextInt(50));
        List<Event> out = new ArrayList<>(changes.size());
        for (int i = 0; i < changes.size(); i++) {
            out.add(append(changes.get(i), transactionId, i, changes.size()));
        }
        return out;
    }

    public Event append(Change c) {
        return transaction(List.of(c)).get(0);
    }

    private Event append(Change c, UUID transactionId, int ordinal, int count) {
        long p = ++position;
        ObjectNode e = JSON.createObjectNode();
        e.put("tenant", stream.tenant());
        e.put("catalog", stream.catalog());
        e.put("epoch", epoch);
        e.put("position", p);
        e.put("eventId", uuid().toString());
        e.put("transactionId", transactionId.toString());
        e.put("transactionOrdinal", ordinal);
        e.put("transactionCount", count);
        e.put("type", c.type());
        e.put("aggregateType", c.aggregateType());
        e.put("aggregateId", c.aggregateId());
        e.put("revision", c.revision());
        ArrayNode deps = e.putArray("dependsOn");
        for (AggregateRevision d : c.dependsOn()) {
            deps.addObject().put("aggregateType", d.aggregateType()).put("aggregateId", d.aggregateId())
                    .put("revision", d.revision());
        }
        e.put("occurredAt", clock.toString());
        e.set("payload", c.payload());
        String wire = JSON.writeValueAsString(e);
        digest = ChainDigest.next(digest, wire);
        return new Event(c, epoch, p, wire, digest);
    }

    public long position() {
        return position;
    }

    /** A UUIDv7 whose time and random bits come from the seeded clock and random. */
    private UUID uuid() {
        long msb = (clock.toEpochMilli() << 16) | 0x7000L | random.nextInt(1 << 12);
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
