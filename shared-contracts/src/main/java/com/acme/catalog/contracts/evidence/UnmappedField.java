package com.acme.catalog.contracts.evidence;

import com.acme.catalog.contracts.BodyRules;

import com.fasterxml.jackson.annotation.JsonCreator;
import tools.jackson.databind.JsonNode;

/**
 * Something the extractor found in the artifact but could not map to a claim: a field name and, optionally, the
 * raw value it saw. A bare string in the request is a field without a value.
 */
public record UnmappedField(String field, JsonNode value) {

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public UnmappedField {
        BodyRules.text("unmappedFields[].field", field, 256);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static UnmappedField named(String field) {
        return new UnmappedField(field, null);
    }
}
