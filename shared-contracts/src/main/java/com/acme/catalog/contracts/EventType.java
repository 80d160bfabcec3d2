package com.acme.catalog.contracts;

/** Integration event types of the contract; consumers record any other type as IGNORED. */
public enum EventType {
    ItemUpserted(AggregateType.ITEM),
    ItemDeleted(AggregateType.ITEM),
    MappingUpserted(AggregateType.MAPPING),
    PolicyUpserted(AggregateType.POLICY),
    ReleasePublished(AggregateType.RELEASE),
    DecisionRecorded(AggregateType.DECISION);

    private final AggregateType aggregate;

    EventType(AggregateType aggregate) {
        this.aggregate = aggregate;
    }

    /** @return the wire name of the aggregate type events of this type belong to */
    public String aggregateType() {
        return aggregate.wire();
    }

    /** @return the aggregate type events of this type belong to */
    public AggregateType aggregate() {
        return aggregate;
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
