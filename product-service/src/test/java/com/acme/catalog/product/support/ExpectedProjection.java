package com.acme.catalog.product.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * What the product must hold after every event of a chain is processed, computed independently of the product's
 * code: each aggregate's highest revision is current, and an item is public as named by the PUBLIC release (by
 * its current revision) with the greatest position naming it, unless the item's current revision deletes it.
 */
public final class ExpectedProjection {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code itemId -> "revision|deleted|attributes"} with attributes as canonical JSON. */
    public final Map<String, String> items = new TreeMap<>();
    /** {@code releaseId -> "revision|visibility"}. */
    public final Map<String, String> releases = new TreeMap<>();
    /** {@code itemId -> "revision|releaseId"}. */
    public final Map<String, String> publicItems = new TreeMap<>();
    /** {@code itemId@revision -> attributes} as sent (JSON text), for every item revision that is not a deletion. */
    private final Map<String, String> attributesAt = new HashMap<>();

    private ExpectedProjection() {
    }

    /** Canonical text of a JSON object (keys sorted), to compare jsonb output with what was sent. */
    public static String canonical(String jsonText) {
        return canonical(JSON.readTree(jsonText));
    }

    static String canonical(JsonNode n) {
        return JSON.writer().with(tools.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .writeValueAsString(JSON.convertValue(n, TreeMap.class));
    }

    public static ExpectedProjection of(List<ChainWriter.Event> chain) {
        Map<String, ChainWriter.Event> current = new HashMap<>();
        ExpectedProjection x = new ExpectedProjection();
        for (ChainWriter.Event e : chain) {
            Change c = e.change();
            if (c.type().equals("ItemUpserted")) {
                x.attributesAt.put(c.aggregateId() + "@" + c.revision(), c.payload().get("attributes").toString());
            }
            if (List.of("item", "mapping", "policy", "release").contains(c.aggregateType())) {
                current.merge(c.aggregateType() + ":" + c.aggregateId(), e,
                        (a, b) -> a.change().revision() >= b.change().revision() ? a : b);
            }
        }
        for (ChainWriter.Event e : current.values()) {
            Change c = e.change();
            if (c.aggregateType().equals("item")) {
                boolean deleted = c.type().equals("ItemDeleted");
                x.items.put(c.aggregateId(), c.revision() + "|" + deleted + "|"
                        + (deleted ? "{}" : canonical(c.payload().get("attributes"))));
            } else if (c.aggregateType().equals("release")) {
                x.releases.put(c.aggregateId(), c.revision() + "|" + c.payload().get("visibility").stringValue());
            }
        }
        Map<String, Long> bestReleasePosition = new HashMap<>();
        for (ChainWriter.Event e : current.values()) {
            Change c = e.change();
            if (!c.aggregateType().equals("release") || !c.payload().get("visibility").stringValue().equals("PUBLIC")) {
                continue;
            }
            Map<String, Integer> named = new HashMap<>();
            for (JsonNode ref : c.payload().get("items")) {
                named.merge(ref.get("itemId").stringValue(), ref.get("revision").intValue(), Math::max);
            }
            named.forEach((itemId, revision) -> {
                String item = x.items.get(itemId);
                if (item == null || item.contains("|true|")) {
                    return;
                }
                if (bestReleasePosition.getOrDefault(itemId, -1L) < e.position()) {
                    bestReleasePosition.put(itemId, e.position());
                    x.publicItems.put(itemId, revision + "|" + c.aggregateId());
                }
            });
        }
        return x;
    }

    /**
     * The rows of the {@code public-view-v1} profile: {@code item_id, revision, release_id, attributes} (the
     * attributes as sent: render them with PostgreSQL's jsonb::text before hashing), in ascending byte order of the
     * item id.
     */
    /** {@code itemId -> "revision|releaseId|attributes"} of every public item, attributes as canonical JSON. */
    public Map<String, String> publicView() {
        Map<String, String> out = new TreeMap<>();
        for (Object[] row : publicRows()) {
            out.put((String) row[0], row[1] + "|" + row[2] + "|" + canonical((String) row[3]));
        }
        return out;
    }

    public java.util.List<Object[]> publicRows() {
        java.util.List<Object[]> rows = new java.util.ArrayList<>();
        publicItems.forEach((id, shown) -> {
            String[] p = shown.split("\\|");
            int revision = Integer.parseInt(p[0]);
            rows.add(new Object[] {id, revision, p[1], attributesAt.get(id + "@" + revision)});
        });
        return rows;
    }
}
