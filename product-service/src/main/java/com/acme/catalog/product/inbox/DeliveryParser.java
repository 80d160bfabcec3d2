package com.acme.catalog.product.inbox;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.IntegrationEvent;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Reads deliveries without re-serializing anything: the exact text of each element of {@code "events"} is cut out
 * of the body by the streaming parser's token offsets, its chain-digest suffix split off ({@link EventWire}), and
 * only then is the wire parsed to read the envelope. A body that is not {@code {"events":[objects…]}} is 400
 * {@code INVALID_BODY}; an element that is not a well-formed integration event is 422 {@code INVALID_EVENT}.
 */
public final class DeliveryParser {

    private final ObjectMapper json;
    private final int maxEvents;

    public DeliveryParser(ObjectMapper json, int maxEvents) {
        this.json = json;
        this.maxEvents = maxEvents;
    }

    /** Parses a whole delivery body; @return its events in delivery order, at least one */
    public List<IntegrationEvent> parseDelivery(String body) {
        List<String> elements = elements(body);
        List<IntegrationEvent> events = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            events.add(parseElement(i, elements.get(i)));
        }
        return events;
    }

    /** The exact text of every element of the body's {@code "events"} array. */
    List<String> elements(String body) {
        List<String> out = new ArrayList<>();
        boolean seen = false;
        try (JsonParser p = json.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw invalidBody("body must be a JSON object {\"events\":[…]}");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (!"events".equals(name)) {
                    p.skipChildren();
                    continue;
                }
                if (seen || value != JsonToken.START_ARRAY) {
                    throw invalidBody("events must be one array of event objects");
                }
                seen = true;
                sliceElements(p, body, out);
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw invalidBody("body must be exactly one JSON object");
            }
        } catch (JacksonException e) {
            throw invalidBody("body is not valid JSON: " + e.getOriginalMessage());
        }
        if (out.isEmpty()) {
            throw invalidBody("events must be a non-empty array");
        }
        return out;
    }

    private void sliceElements(JsonParser p, String body, List<String> out) {
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                throw invalidBody("events[" + out.size() + "] must be a JSON object");
            }
            int start = (int) p.currentTokenLocation().getCharOffset();
            p.skipChildren();
            int end = (int) p.currentTokenLocation().getCharOffset() + 1;
            if (out.size() == maxEvents) {
                throw invalidBody("a delivery carries at most " + maxEvents + " events");
            }
            out.add(body.substring(start, end));
        }
    }

    /** Parses one delivered element: stored wire plus {@code ,"chainDigest":"…"}. */
    IntegrationEvent parseElement(int index, String element) {
        EventWire.Split split;
        try {
            split = EventWire.split(element);
        } catch (IllegalArgumentException e) {
            throw invalidEvent(index, e.getMessage());
        }
        return parseWire(index, split.wire(), split.chainDigest());
    }

    /** Parses a stored wire (e.g. of a held event) whose digest is known. */
    public IntegrationEvent parseWire(String wire, String chainDigest) {
        return parseWire(-1, wire, chainDigest);
    }

    private IntegrationEvent parseWire(int index, String wire, String chainDigest) {
        try {
            JsonNode e = json.readTree(wire);
            if (e == null || !e.isObject()) {
                throw new BadEvent("is not a JSON object");
            }
            return envelope(e, wire, chainDigest);
        } catch (BadEvent e) {
            throw invalidEvent(index, e.getMessage());
        } catch (InvalidIdException e) {
            throw invalidEvent(index, e.getMessage());
        } catch (JacksonException e) {
            throw invalidEvent(index, "is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static IntegrationEvent envelope(JsonNode e, String wire, String chainDigest) {
        StreamId stream = new StreamId(text(e, "tenant"), text(e, "catalog"));
        long epoch = number(e, "epoch", 1);
        long position = number(e, "position", 1);
        UUID eventId = uuid(text(e, "eventId"));
        String type = text(e, "type");
        EventType known = EventType.parse(type);
        if (known == null) {
            return new IntegrationEvent(wire, chainDigest, stream, epoch, position, eventId, type, null,
                    optionalText(e, "aggregateType"), optionalText(e, "aggregateId"), 0, List.of(), e.get("payload"));
        }
        String aggregateType = text(e, "aggregateType");
        if (!aggregateType.equals(known.aggregateType())) {
            throw new BadEvent("of type " + type + " must have aggregateType " + known.aggregateType());
        }
        String aggregateId = AggregateIds.require("aggregateId", text(e, "aggregateId"));
        int revision = revision(e, "revision");
        JsonNode payload = e.get("payload");
        if (payload == null || !payload.isObject()) {
            throw new BadEvent("payload must be a JSON object");
        }
        PayloadRules.check(known, payload);
        List<AggregateRevision> dependsOn = dependsOn(e.get("dependsOn"));
        for (AggregateRevision d : dependsOn) {
            if (d.aggregateType().equals(aggregateType) && d.aggregateId().equals(aggregateId)
                    && d.revision() >= revision) {
                throw new BadEvent("dependsOn names revision " + d.revision() + " of its own aggregate, which "
                        + "is not before this event's revision " + revision);
            }
        }
        return new IntegrationEvent(wire, chainDigest, stream, epoch, position, eventId, type, known,
                aggregateType, aggregateId, revision, dependsOn, payload);
    }

    private static List<AggregateRevision> dependsOn(JsonNode deps) {
        if (deps == null || deps.isNull()) {
            return List.of();
        }
        if (!deps.isArray()) {
            throw new BadEvent("dependsOn must be an array");
        }
        List<AggregateRevision> out = new ArrayList<>(deps.size());
        for (JsonNode d : deps) {
            if (!d.isObject()) {
                throw new BadEvent("dependsOn[] must be objects");
            }
            out.add(new AggregateRevision(text(d, "aggregateType"),
                    AggregateIds.require("dependsOn[].aggregateId", text(d, "aggregateId")),
                    revision(d, "revision")));
        }
        return out;
    }

    static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isString() || v.stringValue().isEmpty()) {
            throw new BadEvent(field + " must be a non-empty string");
        }
        return v.stringValue();
    }

    private static String optionalText(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isString() ? v.stringValue() : null;
    }

    static long number(JsonNode n, String field, long min) {
        JsonNode v = n.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min) {
            throw new BadEvent(field + " must be an integer >= " + min);
        }
        return v.longValue();
    }

    static int revision(JsonNode n, String field) {
        long v = number(n, field, 1);
        if (v > Integer.MAX_VALUE) {
            throw new BadEvent(field + " is out of range");
        }
        return (int) v;
    }

    private static UUID uuid(String s) {
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new BadEvent("eventId must be a UUID");
        }
    }

    private static ApiException invalidBody(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }

    private static ApiException invalidEvent(int index, String message) {
        String where = index >= 0 ? "events[" + index + "]" : "stored event";
        return new ApiException(ProblemCode.INVALID_EVENT, where + ": " + message);
    }

    /** A malformed envelope or payload; answered as {@code INVALID_EVENT} with the element's index. */
    static final class BadEvent extends RuntimeException {
        BadEvent(String message) {
            super(message);
        }
    }
}
