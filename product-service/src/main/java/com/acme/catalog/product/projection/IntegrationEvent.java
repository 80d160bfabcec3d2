package com.acme.catalog.product.projection;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.StreamId;

import tools.jackson.databind.JsonNode;

/**
 * One integration event as delivered: its exact stored {@code wire} text, the chain digest the sender claims for
 * it, and the envelope fields read from the wire. {@code knownType} is null for a type this product does not
 * know; then the aggregate fields may be absent ({@code aggregateType}/{@code aggregateId} null, revision 0).
 */
public record IntegrationEvent(String wire, String chainDigest, StreamId stream, long epoch, long position,
        UUID eventId, String type, EventType knownType, String aggregateType, String aggregateId, int revision,
        List<AggregateRevision> dependsOn, JsonNode payload) {

    public IntegrationEvent {
        dependsOn = List.copyOf(dependsOn);
    }

    /** The revision this event makes, e.g. {@code item sku-1 revision 3}. */
    public AggregateRevision made() {
        return new AggregateRevision(aggregateType, aggregateId, revision);
    }
}
