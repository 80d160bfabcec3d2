package com.acme.catalog.contracts;

import java.util.List;

/**
 * Aggregate types of the contract, by their wire name (the {@code aggregateType} of an event, a dependency or a
 * claim, and the {@code aggregate_type} column of both services).
 */
public enum AggregateType {
    ITEM("item"),
    MAPPING("mapping"),
    POLICY("policy"),
    RELEASE("release"),
    /** A review decision: an event of its own, not accepted state. */
    DECISION("decision");

    /** The aggregates whose current revision is accepted state (and a claim or a checksum may name), in order. */
    public static final List<AggregateType> ACCEPTED_STATE = List.of(ITEM, MAPPING, POLICY, RELEASE);

    private final String wire;

    AggregateType(String wire) {
        this.wire = wire;
    }

    /** @return the name on the wire and in the databases; never null */
    public String wire() {
        return wire;
    }

    /** @return the type of this wire name, or null when the name is not one of the contract's types */
    public static AggregateType parse(String wire) {
        for (AggregateType t : values()) {
            if (t.wire.equals(wire)) {
                return t;
            }
        }
        return null;
    }

    /** @return the wire names of {@link #ACCEPTED_STATE}, in order */
    public static List<String> acceptedStateNames() {
        return ACCEPTED_STATE.stream().map(AggregateType::wire).toList();
    }
}
