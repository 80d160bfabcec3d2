package com.acme.catalog.resolver.stream;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.resolver.stream.Change.ItemRef;

import tools.jackson.databind.JsonNode;

/**
 * Turns request bodies into validated {@link Change}s; anything off is 400 before a lock is taken. Attributes and
 * rules are held to {@link JsonLimits}; the size of the event a change becomes is checked where its wire is built
 * ({@code EventAppender}).
 */
public final class ChangeParser {

    /** Upper bound on changes in one logical transaction. */
    public static final int MAX_CHANGES = 1000;

    private ChangeParser() {
    }

    public static Change.UpsertItem upsertItem(String itemId, JsonNode body) {
        requireObject(body, "body");
        JsonNode attributes = body.get("attributes");
        requireObject(attributes, "attributes");
        JsonLimits.checkAttributes(attributes);
        return new Change.UpsertItem(AggregateIds.require("itemId", itemId), attributes,
                optionalRevision(body, "expectedRevision"));
    }

    public static Change.DeleteItem deleteItem(String itemId, Integer expectedRevision) {
        if (expectedRevision != null && expectedRevision < 0) {
            throw invalid("expectedRevision must be >= 0");
        }
        return new Change.DeleteItem(AggregateIds.require("itemId", itemId), expectedRevision);
    }

    public static Change.UpsertMapping upsertMapping(String mappingId, JsonNode body) {
        requireObject(body, "body");
        return new Change.UpsertMapping(AggregateIds.require("mappingId", mappingId),
                requireText(body, "source"), requireText(body, "target"));
    }

    public static Change.UpsertPolicy upsertPolicy(String policyId, JsonNode body) {
        requireObject(body, "body");
        JsonNode rules = body.get("rules");
        requireObject(rules, "rules");
        JsonLimits.checkValue("rules", rules);
        return new Change.UpsertPolicy(AggregateIds.require("policyId", policyId), rules);
    }

    public static Change.PutRelease putRelease(String releaseId, JsonNode body) {
        requireObject(body, "body");
        String visibility = requireText(body, "visibility");
        if (!visibility.equals("PRIVATE") && !visibility.equals("PUBLIC")) {
            throw invalid("visibility must be PRIVATE or PUBLIC");
        }
        JsonNode items = body.get("items");
        if (items == null || !items.isArray()) {
            throw invalid("items must be an array");
        }
        if (items.size() > JsonLimits.MAX_RELEASE_ITEMS) {
            throw invalid("a release names at most " + JsonLimits.MAX_RELEASE_ITEMS + " items");
        }
        List<ItemRef> refs = new ArrayList<>();
        for (JsonNode ref : items) {
            requireObject(ref, "items[]");
            String itemId = AggregateIds.require("itemId", textOrNull(ref, "itemId"));
            JsonNode rev = ref.get("revision");
            if (rev == null || !rev.isIntegralNumber() || !rev.canConvertToInt() || rev.intValue() < 1) {
                throw invalid("items[].revision must be an integer >= 1");
            }
            refs.add(new ItemRef(itemId, rev.intValue()));
        }
        return new Change.PutRelease(AggregateIds.require("releaseId", releaseId), visibility, List.copyOf(refs));
    }

    /** The {@code changes} array of a multi-change transaction. */
    public static List<Change> transaction(JsonNode body) {
        requireObject(body, "body");
        JsonNode changes = body.get("changes");
        if (changes == null || !changes.isArray() || changes.isEmpty()) {
            throw invalid("changes must be a non-empty array");
        }
        if (changes.size() > MAX_CHANGES) {
            throw invalid("a transaction holds at most " + MAX_CHANGES + " changes");
        }
        List<Change> out = new ArrayList<>(changes.size());
        int i = 0;
        for (JsonNode c : changes) {
            requireObject(c, "changes[" + i + "]");
            String op = textOrNull(c, "op");
            out.add(switch (op == null ? "" : op) {
                case "upsertItem" -> upsertItem(textOrNull(c, "itemId"), c);
                case "deleteItem" -> deleteItem(textOrNull(c, "itemId"), optionalRevision(c, "expectedRevision"));
                case "upsertMapping" -> upsertMapping(textOrNull(c, "mappingId"), c);
                case "upsertPolicy" -> upsertPolicy(textOrNull(c, "policyId"), c);
                case "putRelease" -> putRelease(textOrNull(c, "releaseId"), c);
                default -> throw invalid("changes[" + i + "].op must be one of upsertItem, deleteItem, "
                        + "upsertMapping, upsertPolicy, putRelease");
            });
            i++;
        }
        return out;
    }

    private static Integer optionalRevision(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 0) {
            throw invalid(field + " must be an integer >= 0");
        }
        return n.intValue();
    }

    private static void requireObject(JsonNode n, String what) {
        if (n == null || !n.isObject()) {
            throw invalid(what + " must be a JSON object");
        }
    }

    private static String requireText(JsonNode body, String field) {
        String v = textOrNull(body, field);
        if (v == null || v.isEmpty() || v.length() > JsonLimits.MAX_TEXT_MEMBER_CHARS) {
            throw invalid(field + " must be a string of 1-" + JsonLimits.MAX_TEXT_MEMBER_CHARS + " characters");
        }
        return JsonLimits.requireCleanText(field, v);
    }

    private static String textOrNull(JsonNode body, String field) {
        JsonNode n = body.get(field);
        return n != null && n.isString() ? n.stringValue() : null;
    }

    private static ApiException invalid(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }
}
