package com.acme.catalog.contracts.evidence;

import java.util.Set;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.contracts.BodyRules;

import tools.jackson.databind.JsonNode;

/**
 * One claim of an extraction run: the extractor read {@code value} for {@code field} of an aggregate of the
 * stream. {@code value} is any JSON value, kept as sent.
 */
public record ClaimInput(String aggregateType, String aggregateId, String field, JsonNode value) {

    /** The aggregate types a claim may be about (those of accepted state). */
    public static final Set<String> AGGREGATE_TYPES = Set.copyOf(AggregateType.acceptedStateNames());

    public ClaimInput {
        if (aggregateType == null || !AGGREGATE_TYPES.contains(aggregateType)) {
            throw BodyRules.invalid("claims[].aggregateType must be one of item, mapping, policy, release");
        }
        AggregateIds.require("claims[].aggregateId", aggregateId);
        BodyRules.text("claims[].field", field, 256);
        BodyRules.present("claims[].value", value);
    }
}
