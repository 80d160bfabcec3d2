package com.acme.catalog.product.support;

import java.util.List;

import com.acme.catalog.product.projection.AggregateRevision;

import tools.jackson.databind.node.ObjectNode;

/** One change of accepted state as the resolver publishes it, before it gets a position. */
public record Change(String type, String aggregateType, String aggregateId, int revision,
        List<AggregateRevision> dependsOn, ObjectNode payload) {

    public Change {
        dependsOn = List.copyOf(dependsOn);
    }
}
