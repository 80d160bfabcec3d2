package com.acme.catalog.contracts.json;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;

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

    /**
     * A JSON string, or null for anything else (absent, null, a number, an object…), so the record's compact
     * constructor answers for it as for a missing value (an id field: 400 {@code INVALID_ID}).
     */
    public static final class TextOrNull extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                return p.getString();
            }
            p.skipChildren();
            return null;
        }
    }

    /**
     * A JSON integer that fits a {@code long}, or null for anything else ({@code 1.5}, {@code "1"}, {@code true},
     * 2^63…), so the record's compact constructor answers for it as for a missing value.
     */
    public static final class IntegralOrNull extends ValueDeserializer<Long> {
        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT
                    && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                return p.getLongValue();
            }
            p.skipChildren();
            return null;
        }
    }

    private static final JsonMapper BINDER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /**
     * Binds a request body already read as a tree to its request record, answering as the web layer does for a
     * body bound directly: what the record's compact constructor refused keeps its code and message, anything else
     * (not an object, a field of the wrong JSON type) is 400 {@code INVALID_BODY}.
     *
     * @return the record, never null
     * @throws ApiException or {@link InvalidIdException} as above
     */
    public static <T> T bind(JsonNode body, Class<T> type, String expected) {
        if (body == null || !body.isObject()) {
            throw new ApiException(ProblemCode.INVALID_BODY, "body must be a JSON object" + expected);
        }
        try {
            return BINDER.treeToValue(body, type);
        } catch (JacksonException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ApiException refused) {
                    throw refused;
                }
                if (t instanceof InvalidIdException badId) {
                    throw badId;
                }
            }
            throw new ApiException(ProblemCode.INVALID_BODY, "body does not have the expected shape" + expected);
        }
    }
}
