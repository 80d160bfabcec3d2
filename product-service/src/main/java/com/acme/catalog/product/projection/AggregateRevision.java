package com.acme.catalog.product.projection;

/** One revision of one aggregate: what a {@code dependsOn} entry names and what a parked event waits for. */
public record AggregateRevision(String aggregateType, String aggregateId, int revision) {

    @Override
    public String toString() {
        return aggregateType + " " + aggregateId + " revision " + revision;
    }
}
