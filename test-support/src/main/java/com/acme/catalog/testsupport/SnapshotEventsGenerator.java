package com.acme.catalog.testsupport;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Writes a valid snapshot-derived events.json (the resolver's bootstrap-import input) of a given size, the same
 * bytes for the same seed: items (upserts, re-upserts, deletes, re-creations), mappings, policies and releases
 * that name live item revisions, with aggregate versions 1, 2, … per aggregate. One event per line.
 */
public final class SnapshotEventsGenerator {

    private final Random random;
    private final Map<String, Integer> versions = new HashMap<>();
    /** items whose current revision is not a deletion, with that revision. */
    private final Map<String, Integer> liveItems = new HashMap<>();
    private final List<String> liveItemIds = new ArrayList<>();
    private final List<String> deletedItemIds = new ArrayList<>();
    private int itemCount;
    private int mappingCount;
    private int releaseCount;

    private SnapshotEventsGenerator(long seed) {
        this.random = new Random(seed);
    }

    /** Writes {@code events} events to {@code file}, replacing it. */
    public static void write(Path file, int events, long seed) {
        new SnapshotEventsGenerator(seed).writeFile(file, events);
    }

    private void writeFile(Path file, int events) {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("[\n");
            for (int i = 0; i < events; i++) {
                w.write(i == 0 ? "  " : ",\n  ");
                w.write(next(i));
            }
            w.write("\n]\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String next(int i) {
        int kind = random.nextInt(100);
        if (kind < 5 && liveItemIds.size() > 10) {
            String item = liveItemIds.remove(random.nextInt(liveItemIds.size()));
            liveItems.remove(item);
            deletedItemIds.add(item);
            return event(i, "ItemDeleted", "item", item, "{}");
        }
        if (kind < 20 && !liveItemIds.isEmpty()) {
            StringBuilder items = new StringBuilder();
            int n = 1 + random.nextInt(5);
            for (int k = 0; k < n; k++) {
                String item = liveItemIds.get(random.nextInt(liveItemIds.size()));
                items.append(k == 0 ? "" : ",").append("{\"itemId\":\"").append(item).append("\",\"revision\":")
                        .append(liveItems.get(item)).append('}');
            }
            String release = "rel-" + (releaseCount < 20 || random.nextInt(3) == 0 ? releaseCount++
                    : random.nextInt(releaseCount));
            return event(i, "ReleasePublished", "release", release, "{\"visibility\":\""
                    + (random.nextBoolean() ? "PUBLIC" : "PRIVATE") + "\",\"items\":[" + items + "]}");
        }
        if (kind < 35) {
            String mapping = "map-" + (mappingCount < 10 || random.nextInt(4) > 0 ? mappingCount++
                    : random.nextInt(mappingCount));
            return event(i, "MappingUpserted", "mapping", mapping, "{\"source\":\"vendor-field-" + random.nextInt(500)
                    + "\",\"target\":\"attribute-" + random.nextInt(80) + "\"}");
        }
        if (kind < 40) {
            String policy = "pol-" + random.nextInt(25);
            return event(i, "PolicyUpserted", "policy", policy, "{\"rules\":{\"minConfidence\":0."
                    + (50 + random.nextInt(50)) + ",\"requireReview\":" + random.nextBoolean() + ",\"sources\":[\"crawl\""
                    + ",\"feed\"]}}");
        }
        String item;
        int pick = random.nextInt(10);
        if (pick < 6 || liveItemIds.isEmpty()) {
            item = "sku-" + itemCount++;
        } else if (pick < 9 || deletedItemIds.isEmpty()) {
            item = liveItemIds.get(random.nextInt(liveItemIds.size()));
        } else {
            item = deletedItemIds.remove(random.nextInt(deletedItemIds.size()));
        }
        if (!liveItems.containsKey(item)) {
            liveItemIds.add(item);
        }
        int price = 5 + random.nextInt(500);
        String data = "{\"attributes\":{\"name\":\"Item " + item + " v" + (versions.getOrDefault("item/" + item, 0) + 1)
                + "\",\"brand\":\"brand-" + random.nextInt(40) + "\",\"price\":" + price + ".99,\"currency\":\"EUR\""
                + ",\"sizes\":[" + (36 + random.nextInt(4)) + "," + (40 + random.nextInt(4)) + "],\"description\":"
                + "\"A generated item used to measure bootstrap imports; revision text " + random.nextInt(1_000_000)
                + "\"}}";
        String e = event(i, "ItemUpserted", "item", item, data);
        liveItems.put(item, versions.get("item/" + item));
        return e;
    }

    private String event(int i, String type, String aggregateType, String subject, String data) {
        int version = versions.merge(aggregateType + "/" + subject, 1, Integer::sum);
        UUID id = new UUID((random.nextLong() & ~0xF000L) | 0x7000L,
                (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
        return "{\"specversion\":\"1.0\",\"id\":\"" + id + "\",\"source\":\"snapshot-converter\",\"type\":\"" + type
                + "\",\"subject\":\"" + subject + "\",\"aggregatetype\":\"" + aggregateType
                + "\",\"aggregateversion\":" + version + ",\"time\":\"2026-11-01T00:00:00Z\",\"data\":" + data + "}";
    }
}
