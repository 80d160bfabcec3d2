package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.resolver.bootstrap.EventsFileReader.RawEvent;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.WireBound;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One event of a snapshot-derived events.json, checked on its own and mapped to the {@link Change} the write path
 * applies. Checks that need the rest of the file (unique ids, version sequences, what exists) are in
 * {@link EventsValidator}.
 *
 * @param index            0-based position in the input array; the event lands at stream position index + 1
 * @param id               the input {@code id}, used for validation and diagnostics only
 * @param aggregateVersion the revision the write path must assign
 * @param bytes            size of the event in the input
 */
record SnapshotEvent(int index, String id, EventType type, String subject, int aggregateVersion, long bytes,
        Change change) {

    static final String SPEC_VERSION = "1.0";
    static final int MAX_ID_LENGTH = 256;
    /**
     * An event of at most this many input bytes cannot become a wire over {@link JsonLimits#MAX_EVENT_WIRE_BYTES}:
     * re-serialized, a payload grows at most 3-fold (a number such as {@code 1e6} is written {@code 1000000.0}; a
     * release's item references come back once more as dependencies), plus the envelope. Larger events are measured.
     */
    static final long WIRE_SAFE_BYTES = (JsonLimits.MAX_EVENT_WIRE_BYTES - WireBound.ENVELOPE_BYTES) / 4;

    /**
     * @throws RejectedEventException {@code INVALID_BODY} for a malformed envelope, {@code INVALID_EVENT} for one
     *                                that cannot be imported
     */
    static SnapshotEvent from(RawEvent raw, long maxEventBytes) {
        ObjectNode n = raw.node();
        int index = raw.index();
        String id = text(n, "id");
        if (id != null && (id.isEmpty() || id.length() > MAX_ID_LENGTH)) {
            id = null;
        }
        if (raw.bytes() > maxEventBytes) {
            throw invalidEvent(index, id, "is %d bytes, over the per-event limit of %d bytes"
                    .formatted(raw.bytes(), maxEventBytes));
        }
        if (id == null) {
            throw invalidBody(index, null, "id must be a string of 1-" + MAX_ID_LENGTH + " characters");
        }
        try {
            JsonLimits.checkText("the event", n);
        } catch (ApiException e) {
            throw invalidBody(index, JsonLimits.textProblem(id) == null ? id : null, e.getMessage());
        }
        if (!SPEC_VERSION.equals(text(n, "specversion"))) {
            throw invalidBody(index, id, "specversion must be \"" + SPEC_VERSION + "\"");
        }
        String typeName = requireText(n, "type", index, id);
        String subject = requireText(n, "subject", index, id);
        String aggregateType = requireText(n, "aggregatetype", index, id);
        JsonNode version = n.get("aggregateversion");
        if (version == null || !version.isIntegralNumber() || !version.canConvertToInt()) {
            throw invalidBody(index, id, "aggregateversion must be an integer");
        }
        JsonNode data = n.get("data");
        if (data == null || !data.isObject()) {
            throw invalidBody(index, id, "data must be a JSON object");
        }
        EventType type = EventType.parse(typeName);
        if (type == null || type == EventType.DecisionRecorded) {
            throw invalidEvent(index, id, "type " + typeName + " cannot be imported (ItemUpserted, ItemDeleted, "
                    + "MappingUpserted, PolicyUpserted or ReleasePublished)");
        }
        if (!type.aggregateType().equals(aggregateType)) {
            throw invalidEvent(index, id, "aggregatetype of a " + type + " must be " + type.aggregateType()
                    + ", not " + aggregateType);
        }
        if (subject.isEmpty()) {
            throw invalidEvent(index, id, "subject must not be empty");
        }
        if (version.intValue() < 1) {
            throw invalidEvent(index, id, "aggregateversion must be >= 1");
        }
        Change change;
        try {
            change = toChange(type, subject, data);
        } catch (JsonLimits.Refused e) {
            throw invalidBody(index, id, e.getMessage());
        } catch (InvalidIdException | ApiException e) {
            throw invalidEvent(index, id, e.getMessage());
        }
        if (raw.bytes() > WIRE_SAFE_BYTES) {
            long bound = WireBound.of(change);
            if (bound > JsonLimits.MAX_EVENT_WIRE_BYTES) {
                throw invalidBody(index, id, "would be up to %d bytes on the wire, over the limit of %d bytes"
                        .formatted(bound, JsonLimits.MAX_EVENT_WIRE_BYTES));
            }
        }
        return new SnapshotEvent(index, id, type, subject, version.intValue(), raw.bytes(), change);
    }

    private static Change toChange(EventType type, String subject, JsonNode data) {
        switch (type) {
            case ItemUpserted: {
                Change.UpsertItem c = ChangeParser.upsertItem(subject, data);
                return new Change.UpsertItem(c.itemId(), c.attributes(), null);
            }
            case ItemDeleted:
                return ChangeParser.deleteItem(subject, null);
            case MappingUpserted:
                return ChangeParser.upsertMapping(subject, data);
            case PolicyUpserted:
                return ChangeParser.upsertPolicy(subject, data);
            case ReleasePublished:
                return ChangeParser.putRelease(subject, data);
            default:
                throw new IllegalArgumentException("not importable: " + type);
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isString() ? v.stringValue() : null;
    }

    private static String requireText(JsonNode n, String field, int index, String id) {
        String v = text(n, field);
        if (v == null) {
            throw invalidBody(index, id, field + " must be a string");
        }
        return v;
    }

    static RejectedEventException invalidBody(int index, String id, String problem) {
        return new RejectedEventException(ProblemCode.INVALID_BODY, index, id, problem);
    }

    static RejectedEventException invalidEvent(int index, String id, String problem) {
        return new RejectedEventException(ProblemCode.INVALID_EVENT, index, id, problem);
    }
}
