package com.acme.catalog.contracts;

/** Integration event types of the contract; consumers record any other type as IGNORED. */
public enum EventType {
    ItemUpserted("item"),
    ItemDeleted("item"),
    MappingUpserted("mapping"),
    PolicyUpserted("policy"),
    ReleasePublished("release"),
    DecisionRecorded("decision");

    private final String aggregateType;

    EventType(String aggregateType) {
        this.aggregateType = aggregateType;
    }

    public String aggregateType() {
        return aggregateType;
    }

    /** @return the type, or null when the name is not one of the contract's types */
    public static EventType parse(String name) {
        for (EventType t : values()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
