package com.acme.catalog.product.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.acme.catalog.product.projection.AggregateRevision;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resolver's accepted-state rules in miniature, producing the changes (type, revision, dependsOn, payload)
 * its writes would publish: revision r of an aggregate depends on r-1, a release depends on every item revision
 * it names and names only revisions that are not deletions (of a live or a deleted item), a deletion needs a live
 * item. {@link #random} interleaves item writes, deletions and re-creations, PUBLIC and PRIVATE releases (re-put,
 * emptied, naming older revisions) and releases followed by the next revision of the item they name.
 */
public final class CatalogHistory {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] ADJECTIVES = {"Trail", "Waterproof", "Light", "Classic", "Café", "Urban", "Alpine",
            "Merino", "Reflective", "Insulated"};
    private static final String[] NOUNS = {"runner", "jacket", "boot", "sock", "backpack", "crème", "tent", "glove",
            "hoodie", "sandal"};

    private final Random random;
    private final Map<String, Integer> revisions = new HashMap<>();
    private final Map<String, List<Integer>> liveItemRevisions = new TreeMap<>();
    private final Set<String> deletedItems = new TreeSet<>();
    private int items;

    public CatalogHistory(Random random) {
        this.random = random;
    }

    public Change upsertItem(String id, ObjectNode attributes) {
        int r = next("item", id);
        deletedItems.remove(id);
        liveItemRevisions.computeIfAbsent(id, k -> new ArrayList<>()).add(r);
        ObjectNode payload = JSON.createObjectNode();
        payload.set("attributes", attributes);
        return change("ItemUpserted", "item", id, r, List.of(), payload);
    }

    public Change deleteItem(String id) {
        if (!liveItemRevisions.containsKey(id) || deletedItems.contains(id)) {
            throw new IllegalStateException("item " + id + " is not live");
        }
        deletedItems.add(id);
        return change("ItemDeleted", "item", id, next("item", id), List.of(), JSON.createObjectNode());
    }

    public Change upsertMapping(String id, String source, String target) {
        ObjectNode payload = JSON.createObjectNode().put("source", source).put("target", target);
        return change("MappingUpserted", "mapping", id, next("mapping", id), List.of(), payload);
    }

    public Change upsertPolicy(String id, ObjectNode rules) {
        ObjectNode payload = JSON.createObjectNode();
        payload.set("rules", rules);
        return change("PolicyUpserted", "policy", id, next("policy", id), List.of(), payload);
    }

    /** A release naming item revisions, in the order given. */
    public Change putRelease(String id, String visibility, Map<String, Integer> named) {
        ObjectNode payload = JSON.createObjectNode().put("visibility", visibility);
        ArrayNode list = payload.putArray("items");
        List<AggregateRevision> deps = new ArrayList<>();
        named.forEach((itemId, revision) -> {
            list.addObject().put("itemId", itemId).put("revision", revision);
            deps.add(new AggregateRevision("item", itemId, revision));
        });
        return change("ReleasePublished", "release", id, next("release", id), deps, payload);
    }

    /** A {@code DecisionRecorded} event shaped as the resolver's review code writes it (docs/evidence.md). */
    public Change decision() {
        String id = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
        ObjectNode payload = JSON.createObjectNode().put("decisionId", id)
                .put("caseId", new java.util.UUID(random.nextLong(), random.nextLong()).toString())
                .put("decision", "ACCEPT").put("reviewer", "ana").put("reason", "matches the product page");
        payload.putArray("claimIds").add(new java.util.UUID(random.nextLong(), random.nextLong()).toString());
        payload.putArray("artifactIds").add(new java.util.UUID(random.nextLong(), random.nextLong()).toString());
        return new Change("DecisionRecorded", "decision", id, 1, List.of(), payload);
    }

    /** An event of a type the product does not know. */
    public Change unknown(String type) {
        ObjectNode payload = JSON.createObjectNode().put("note", "from a newer resolver");
        return new Change(type, "tag", "tag-" + random.nextInt(5), 1, List.of(), payload);
    }

    /** A random resolver-like history of {@code n} changes. */
    public List<Change> random(int n) {
        List<Change> out = new ArrayList<>(n);
        while (out.size() < n) {
            int roll = random.nextInt(100);
            List<String> live = liveItems();
            if (roll < 25 || live.isEmpty()) {
                out.add(upsertItem("sku-" + (++items), randomAttributes()));
            } else if (roll < 50) {
                out.add(upsertItem(pick(new ArrayList<>(liveItemRevisions.keySet())), randomAttributes()));
            } else if (roll < 57 && live.size() > 2) {
                out.add(deleteItem(pick(live)));
            } else if (roll < 65) {
                out.add(upsertMapping("map-" + random.nextInt(4), "src-" + random.nextInt(9),
                        "dst-" + random.nextInt(9)));
            } else if (roll < 70) {
                out.add(upsertPolicy("policy-" + random.nextInt(3),
                        JSON.createObjectNode().put("minPrice", random.nextInt(50))));
            } else if (roll < 85) {
                out.add(randomRelease(live));
            } else if (roll < 90) {
                // a PUBLIC release of an item's revision and the item's next revision, usually in one transaction
                String item = pick(live);
                List<Integer> revs = liveItemRevisions.get(item);
                out.add(putRelease("release-" + random.nextInt(5), "PUBLIC",
                        Map.of(item, revs.get(revs.size() - 1))));
                out.add(upsertItem(item, randomAttributes()));
            } else if (roll < 95) {
                out.add(decision());
            } else {
                out.add(unknown("ItemTagged"));
            }
        }
        return out;
    }

    /**
     * Moves some changes that depend on something to an earlier place, so they can reach the product before what
     * they depend on. The resolver never publishes such an order; the product must still park and converge.
     */
    public static List<Change> withForwardDependencies(Random random, List<Change> changes, int moves) {
        List<Change> out = new ArrayList<>(changes);
        for (int m = 0; m < moves; m++) {
            int j = 1 + random.nextInt(out.size() - 1);
            if (out.get(j).dependsOn().isEmpty()) {
                continue;
            }
            int i = Math.max(0, j - 1 - random.nextInt(12));
            out.add(i, out.remove(j));
        }
        return out;
    }

    public static ObjectNode attributes(String name, int price, String color) {
        return JSON.createObjectNode().put("name", name).put("price", price).put("color", color);
    }

    /**
     * A release (PUBLIC three times in five) of up to four items: mostly live ones at their latest revision, some at
     * an older one, some deleted items at a revision they had before (the resolver accepts any revision that is not
     * a deletion); one in six names nothing (it withdraws what the release published).
     */
    private Change randomRelease(List<String> live) {
        Map<String, Integer> named = new LinkedHashMap<>();
        int count = random.nextInt(6) == 0 ? 0 : Math.min(live.size(), 1 + random.nextInt(4));
        List<String> everRevised = new ArrayList<>(liveItemRevisions.keySet());
        for (int i = 0; i < count; i++) {
            String item = random.nextInt(8) == 0 ? pick(everRevised) : pick(live);
            List<Integer> revs = liveItemRevisions.get(item);
            named.put(item, random.nextInt(4) == 0 ? pick(revs) : revs.get(revs.size() - 1));
        }
        return putRelease("release-" + random.nextInt(5), random.nextInt(5) < 3 ? "PUBLIC" : "PRIVATE", named);
    }

    private ObjectNode randomAttributes() {
        String name = ADJECTIVES[random.nextInt(ADJECTIVES.length)] + " " + NOUNS[random.nextInt(NOUNS.length)];
        return attributes(name, 10 + random.nextInt(200), random.nextBoolean() ? "black" : "blue");
    }

    private List<String> liveItems() {
        List<String> live = new ArrayList<>();
        for (String id : liveItemRevisions.keySet()) {
            if (!deletedItems.contains(id)) {
                live.add(id);
            }
        }
        return live;
    }

    private <T> T pick(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }

    private int next(String type, String id) {
        return revisions.merge(type + ":" + id, 1, Integer::sum);
    }

    private static Change change(String type, String aggregateType, String id, int revision,
            List<AggregateRevision> extraDeps, ObjectNode payload) {
        List<AggregateRevision> deps = new ArrayList<>();
        if (revision > 1) {
            deps.add(new AggregateRevision(aggregateType, id, revision - 1));
        }
        deps.addAll(extraDeps);
        return new Change(type, aggregateType, id, revision, deps, payload);
    }
}
