package com.acme.catalog.resolver.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The per-table snapshot format: versions derived per aggregate, child rows folded into their release, parents first,
 * releases naming only revisions that exist, excluded tables ignored, deterministic bytes, and the seed's P1 rules (no
 * source transaction metadata in the output, one event per source row).
 */
class TableSnapshotConversionTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Source transaction metadata an existing system's dump may carry; none of it may reach the output. */
    private static final String SOURCE_TX = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

    @TempDir
    Path dir;

    private Path snapshot() throws IOException {
        Path s = Files.createDirectories(dir.resolve("snapshot"));
        write(s, "items.jsonl",
                // out of order on purpose: rows are sorted by id and version
                "{\"itemId\":\"sku-2\",\"version\":7,\"attributes\":{\"name\":\"Boot\",\"price\":90},"
                        + "\"transactionId\":\"" + SOURCE_TX + "\",\"transactionOrdinal\":3,\"transactionCount\":9}",
                "{\"itemId\":\"sku-1\",\"version\":20,\"attributes\":{\"name\":\"Runner\",\"price\":110}}",
                "",
                "{\"itemId\":\"sku-1\",\"version\":10,\"attributes\":{\"name\":\"Runner\",\"price\":120},"
                        + "\"position\":41,\"offset\":17}",
                "{\"itemId\":\"sku-1\",\"version\":35,\"deleted\":true}",
                "{\"itemId\":\"sku-3\",\"deleted\":true}",
                "{\"itemId\":\"sku-4\",\"attributes\":{}}");
        write(s, "mappings.jsonl", "{\"mappingId\":\"map-color\",\"source\":\"vendor.colour\",\"target\":\"color\"}");
        write(s, "policies.jsonl", "{\"policyId\":\"pol-1\",\"version\":2,\"rules\":{\"min\":0.8}}",
                "{\"policyId\":\"pol-1\",\"version\":1,\"rules\":{\"min\":0.5}}");
        write(s, "releases.jsonl",
                "{\"releaseId\":\"rel-b\",\"visibility\":\"PRIVATE\",\"sequence\":1}",
                "{\"releaseId\":\"rel-a\",\"version\":2,\"visibility\":\"PUBLIC\",\"sequence\":2}",
                "{\"releaseId\":\"rel-a\",\"version\":1,\"visibility\":\"PUBLIC\",\"sequence\":0}");
        write(s, "release_items.jsonl",
                "{\"releaseId\":\"rel-a\",\"releaseVersion\":1,\"itemId\":\"sku-1\",\"itemVersion\":10}",
                "{\"releaseId\":\"rel-a\",\"releaseVersion\":2,\"itemId\":\"sku-2\",\"itemVersion\":7}",
                "{\"releaseId\":\"rel-a\",\"releaseVersion\":2,\"itemId\":\"sku-1\",\"itemVersion\":20}",
                "{\"releaseId\":\"rel-b\",\"itemId\":\"sku-4\",\"itemVersion\":1,\"transactionId\":\"" + SOURCE_TX
                        + "\"}");
        write(s, "outbox.jsonl", "{\"position\":1}");
        write(s, "consumer_offsets.jsonl", "{\"offset\":1}");
        return s;
    }

    @Test
    void derivesVersionsFoldsReleaseItemsAndWritesParentsFirst() throws IOException {
        Path out = dir.resolve("events.json");
        ConversionSummary summary = SnapshotConverter.convertTables(snapshot(), out, 7L);

        List<JsonNode> events = events(out);
        List<String> lines = new ArrayList<>();
        for (JsonNode e : events) {
            lines.add(e.get("type").stringValue() + " " + e.get("subject").stringValue() + " "
                    + e.get("aggregateversion").intValue() + " " + JSON.writeValueAsString(e.get("data")));
        }
        assertThat(lines).containsExactly(
                "ItemUpserted sku-1 1 {\"attributes\":{\"name\":\"Runner\",\"price\":120}}",
                "ItemUpserted sku-1 2 {\"attributes\":{\"name\":\"Runner\",\"price\":110}}",
                "ItemDeleted sku-1 3 {}",
                "ItemUpserted sku-2 1 {\"attributes\":{\"name\":\"Boot\",\"price\":90}}",
                "ItemUpserted sku-4 1 {\"attributes\":{}}",
                "MappingUpserted map-color 1 {\"source\":\"vendor.colour\",\"target\":\"color\"}",
                "PolicyUpserted pol-1 1 {\"rules\":{\"min\":0.5}}",
                "PolicyUpserted pol-1 2 {\"rules\":{\"min\":0.8}}",
                // (sequence, id, version): rel-a v1 (0), rel-b (1), rel-a v2 (2); item versions as derived revisions
                "ReleasePublished rel-a 1 {\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"sku-1\",\"revision\":1}]}",
                "ReleasePublished rel-b 1 {\"visibility\":\"PRIVATE\",\"items\":[{\"itemId\":\"sku-4\",\"revision\":1}]}",
                "ReleasePublished rel-a 2 {\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"sku-1\",\"revision\":2},"
                        + "{\"itemId\":\"sku-2\",\"revision\":1}]}");
        assertThat(summary.events()).isEqualTo(11);
        assertThat(summary.droppedTombstones()).isEqualTo(1);
        assertThat(summary.ignoredFiles()).containsExactly("consumer_offsets.jsonl", "outbox.jsonl");
        assertThat(summary.aggregates()).containsEntry("item", 3L).containsEntry("release", 2L);
        assertThat(summary.source().rows()).containsEntry("items", 6L).containsEntry("release_items", 4L);
        assertThat(summary.eventsByType()).containsEntry("ItemUpserted", 4L).containsEntry("ItemDeleted", 1L)
                .containsEntry("ReleasePublished", 3L);
        assertThat(summary.expectedStateChecksum()).isNull();
    }

    @Test
    void carriesNoSourceTransactionMetadataAndOneEventPerSourceRow() throws IOException {
        Path out = dir.resolve("events.json");
        SnapshotConverter.convertTables(snapshot(), out, 7L);

        String text = Files.readString(out);
        assertThat(text).doesNotContain(SOURCE_TX).doesNotContain("transaction").doesNotContain("ordinal")
                .doesNotContain("position").doesNotContain("offset").doesNotContain("nonce");
        Set<String> ids = new HashSet<>();
        Map<String, Integer> versions = new HashMap<>();
        for (JsonNode e : events(out)) {
            assertThat(iterable(e.propertyNames())).containsExactly("specversion", "id", "type", "subject",
                    "aggregatetype", "aggregateversion", "data");
            assertThat(ids.add(e.get("id").stringValue())).as("a new id per event").isTrue();
            assertThat(UUID.fromString(e.get("id").stringValue()).version()).isEqualTo(7);
            // one event is one version of one aggregate: versions never skip, so no event stands for two rows
            String key = e.get("aggregatetype").stringValue() + "/" + e.get("subject").stringValue();
            int v = e.get("aggregateversion").intValue();
            assertThat(v).isEqualTo(versions.getOrDefault(key, 0) + 1);
            versions.put(key, v);
        }
        // 6 item rows (one tombstone dropped), 1 mapping, 2 policies, 3 releases: 11 events for 11 live source rows
        assertThat(ids).hasSize(11);
    }

    @Test
    void theSameSnapshotAndSeedGiveTheSameBytesAndOnlyIdsDifferOtherwise() throws IOException {
        Path s = snapshot();
        ConversionSummary a = SnapshotConverter.convertTables(s, dir.resolve("a.json"), 42L);
        ConversionSummary b = SnapshotConverter.convertTables(s, dir.resolve("b.json"), 42L);
        SnapshotConverter.convertTables(s, dir.resolve("c.json"), null);
        SnapshotConverter.convertTables(s, dir.resolve("d.json"), 43L);

        assertThat(Files.readAllBytes(dir.resolve("a.json"))).isEqualTo(Files.readAllBytes(dir.resolve("b.json")));
        assertThat(a.outputSha256()).isEqualTo(b.outputSha256());
        String withoutIds = withoutIds(dir.resolve("a.json"));
        assertThat(withoutIds(dir.resolve("c.json"))).isEqualTo(withoutIds);
        assertThat(withoutIds(dir.resolve("d.json"))).isEqualTo(withoutIds);
        assertThat(Files.readString(dir.resolve("d.json"))).isNotEqualTo(Files.readString(dir.resolve("a.json")));
    }

    @Test
    void aReleaseNamingAVersionThatDoesNotExistRejectsTheSnapshotAndWritesNothing() throws IOException {
        Path s = snapshot();
        write(s, "release_items.jsonl",
                "{\"releaseId\":\"rel-a\",\"releaseVersion\":1,\"itemId\":\"sku-1\",\"itemVersion\":10}",
                "{\"releaseId\":\"rel-a\",\"releaseVersion\":1,\"itemId\":\"sku-1\",\"itemVersion\":35}");
        Path out = dir.resolve("events.json");

        assertThatThrownBy(() -> SnapshotConverter.convertTables(s, out, 1L))
                .isInstanceOf(SnapshotRejectedException.class)
                .hasMessage("release_items.jsonl line 2: release rel-a version 1 names item sku-1 version 35, which "
                        + "is not in items.jsonl (or is a deletion)");
        assertThat(out).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("snapshot");
        }
    }

    @Test
    void badRowsAreRejectedWithTheirFileAndLine() throws IOException {
        Map<String, String[]> cases = Map.of(
                "items.jsonl line 1: itemId must be 1-128 characters of [A-Za-z0-9._:-]",
                new String[] {"items.jsonl", "{\"itemId\":\"a b\",\"attributes\":{}}"},
                "items.jsonl line 2: sku-1 version 1 is also at items.jsonl line 1 (one row per version; a row "
                        + "without version is version 1)",
                new String[] {"items.jsonl", "{\"itemId\":\"sku-1\",\"attributes\":{}}",
                        "{\"itemId\":\"sku-1\",\"version\":1,\"attributes\":{}}"},
                "items.jsonl line 1: not valid JSON",
                new String[] {"items.jsonl", "{\"itemId\":"},
                "mappings.jsonl line 1: source must be a string",
                new String[] {"mappings.jsonl", "{\"mappingId\":\"m\",\"target\":\"t\"}"},
                "releases.jsonl line 1: visibility must be \"PUBLIC\" or \"PRIVATE\"",
                new String[] {"releases.jsonl", "{\"releaseId\":\"r\",\"visibility\":\"public\"}"},
                "release_items.jsonl line 1: names release r version 1, which is not in releases.jsonl",
                new String[] {"release_items.jsonl", "{\"releaseId\":\"r\",\"itemId\":\"i\",\"itemVersion\":1}"});
        int n = 0;
        for (Map.Entry<String, String[]> c : cases.entrySet()) {
            Path s = Files.createDirectories(dir.resolve("bad" + n));
            Path out = dir.resolve("out" + n++ + ".json");
            String[] file = c.getValue();
            write(s, file[0], java.util.Arrays.copyOfRange(file, 1, file.length));
            assertThatThrownBy(() -> SnapshotConverter.convertTables(s, out, 1L))
                    .as(c.getKey()).isInstanceOf(SnapshotRejectedException.class).hasMessageStartingWith(c.getKey());
        }
        Path empty = Files.createDirectories(dir.resolve("empty"));
        write(empty, "notes.txt", "nothing");
        assertThatThrownBy(() -> SnapshotConverter.convertTables(empty, dir.resolve("e.json"), 1L))
                .isInstanceOf(SnapshotRejectedException.class).hasMessageContaining("holds none of the snapshot tables");
    }

    static List<JsonNode> events(Path file) throws IOException {
        JsonNode array = JSON.readTree(file.toFile());
        assertThat(array.isArray()).isTrue();
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    static String withoutIds(Path file) throws IOException {
        return Files.readString(file).replaceAll("\"id\":\"[0-9a-f-]{36}\"", "\"id\":\"\"");
    }

    private static <T> List<T> iterable(Iterable<T> it) {
        List<T> out = new ArrayList<>();
        it.forEach(out::add);
        return out;
    }

    private static void write(Path dir, String name, String... lines) throws IOException {
        Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }
}
