package com.acme.catalog.contracts.json;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * Deserializers for fields of request records that must have exactly their JSON type: Jackson would otherwise turn
 * {@code 42} into {@code "42"} or {@code "true"} into {@code true}, where the contract answers 400 {@code INVALID_BODY}.
 * Use with {@code @JsonDeserialize(using = …)} on the record component.
 */
public final class StrictJson {

    private StrictJson() {
    }

    /** A JSON string, nothing else. */
    public static final class Text extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return ctxt.reportInputMismatch(String.class, "expected a JSON string, got %s", p.currentToken());
            }
            return p.getString();
        }
    }

    /** A JSON {@code true} or {@code false}, nothing else. */
    public static final class Flag extends ValueDeserializer<Boolean> {
        @Override
        public Boolean deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
                return ctxt.reportInputMismatch(Boolean.class, "expected true or false, got %s", t);
            }
            return t == JsonToken.VALUE_TRUE;
        }
    }
}
