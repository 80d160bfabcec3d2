package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.resolver.bootstrap.EventsFileReader.RawEvent;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The validation pass's streaming reader reaches exactly the verdict of the writing pass's tree reader
 * ({@link SnapshotEvent#from}) on every event: the same fields when accepted, the same problem when not.
 */
class EventsScannerTest {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final long MAX = 400;

    @TempDir
    Path dir;

    static String ev(String type, String aggregateType, String subject, String version, String data) {
        return "{\"specversion\":\"1.0\",\"id\":\"e\",\"type\":\"" + type + "\",\"subject\":\"" + subject
                + "\",\"aggregatetype\":\"" + aggregateType + "\",\"aggregateversion\":" + version + ",\"data\":"
                + data + "}";
    }

    @Test
    void agreesWithTheTreeReaderOnEveryEdgeCase() throws Exception {
        String item = ev("ItemUpserted", "item", "sku-1", "1", "{\"attributes\":{\"a\":[1,{\"b\":null}]}}");
        List<String> cases = new ArrayList<>(List.of(
                item,
                item.replace("\"id\":\"e\",", ""),
                item.replace("\"id\":\"e\"", "\"id\":\"\""),
                item.replace("\"id\":\"e\"", "\"id\":7"),
                item.replace("\"id\":\"e\"", "\"id\":\"" + "x".repeat(257) + "\""),
                item.replace("\"id\":\"e\"", "\"id\":\"\\u0065\""),
                item.replace("\"1.0\"", "\"1.1\""),
                item.replace("\"1.0\"", "1.0"),
                item.replace("\"subject\":\"sku-1\"", "\"subject\":\"\""),
                item.replace("\"subject\":\"sku-1\"", "\"subject\":\"a b\""),
                item.replace("\"subject\":\"sku-1\"", "\"subject\":null"),
                item.replace(":1,", ":0,"),
                item.replace(":1,", ":-3,"),
                item.replace(":1,", ":1.0,"),
                item.replace(":1,", ":\"1\","),
                item.replace(":1,", ":4294967297,"),
                item.replace(":1,", ":2147483647,"),
                item.replace("{\"attributes\"", "{\"expectedRevision\":3,\"attributes\""),
                item.replace("{\"attributes\"", "{\"expectedRevision\":-1,\"attributes\""),
                item.replace("{\"attributes\"", "{\"expectedRevision\":null,\"attributes\""),
                item.replace("{\"attributes\"", "{\"attributes\":5,\"attributes\""),
                item.replace("{\"attributes\":{", "{\"attributes\":{},\"attributes\":{"),
                item.replace("{\"attributes\":{\"a\":[1,{\"b\":null}]}}", "{\"attributes\":null}"),
                item.replace("{\"attributes\":{\"a\":[1,{\"b\":null}]}}", "{}"),
                item.replace("{\"attributes\":{\"a\":[1,{\"b\":null}]}}", "[]"),
                item.replace("\"type\":\"ItemUpserted\",", "\"type\":\"ItemUpserted\",\"type\":\"ItemDeleted\","),
                item.replace("\"specversion\"", "\"extra\":{\"x\":[[],{}]},\"specversion\""),
                item.replace("\"specversion\":\"1.0\",", "") + "",
                "{\"data\":{\"attributes\":{}},\"specversion\":\"1.0\",\"id\":\"e\",\"type\":\"ItemUpserted\","
                        + "\"subject\":\"s\",\"aggregatetype\":\"item\",\"aggregateversion\":1}",
                ev("ItemDeleted", "item", "sku-1", "2", "{}"),
                ev("ItemDeleted", "item", "sku-1", "2", "{\"whatever\":[1,2]}"),
                ev("ItemDeleted", "mapping", "sku-1", "2", "{}"),
                ev("ItemMoved", "item", "sku-1", "2", "{}"),
                ev("DecisionRecorded", "decision", "d", "1", "{}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"a\",\"target\":\"b\"}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"\",\"target\":\"b\"}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"a\"}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"a\",\"target\":1}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"a\",\"target\":\"b\",\"target\":\"c\"}"),
                ev("PolicyUpserted", "policy", "p", "1", "{\"rules\":{\"x\":1}}"),
                ev("PolicyUpserted", "policy", "p", "1", "{\"rules\":[]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":2,\"x\":{}}]}"),
                ev("ReleasePublished", "release", "r", "1", "{\"visibility\":\"PRIVATE\",\"items\":[]}"),
                ev("ReleasePublished", "release", "r", "1", "{\"visibility\":\"SECRET\",\"items\":[]}"),
                ev("ReleasePublished", "release", "r", "1", "{\"visibility\":\"PUBLIC\",\"items\":{}}"),
                ev("ReleasePublished", "release", "r", "1", "{\"visibility\":\"PUBLIC\",\"items\":[1]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a b\",\"revision\":2}]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":0}]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":1,\"revision\":2}]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"items\":[{\"itemId\":\"a\",\"revision\":1}],\"visibility\":\"PUBLIC\"}"),
                ev("ItemUpserted", "item", "sku-1", "1", "{\"attributes\":{\"big\":\"" + "y".repeat(400) + "\"}}"),
                item.replace("\"type\":\"ItemUpserted\"", "\"type\":{\"a\":\"ItemUpserted\"}"),
                item.replace("\"subject\":\"sku-1\"", "\"subject\":[\"sku-1\",{}]"),
                item.replace("\"id\":\"e\"", "\"id\":{\"e\":1}"),
                item.replace(":1,", ":{\"v\":1},"),
                item.replace("\"1.0\"", "[\"1.0\"]"),
                item.replace("\"aggregatetype\":\"item\"", "\"aggregatetype\":{}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":{\"x\":\"a\"},\"target\":\"b\"}"),
                ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"a\",\"target\":[\"b\"]}"),
                ev("ReleasePublished", "release", "r", "1", "{\"visibility\":[\"PUBLIC\"],\"items\":[]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":{\"a\":1},\"revision\":2}]}"),
                ev("ReleasePublished", "release", "r", "1",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"a\",\"revision\":[2]}]}")));
        int i = 0;
        for (String c : cases) {
            Path file = dir.resolve("case-" + i++ + ".json");
            Files.writeString(file, "[" + c + "]");
            assertThat(scanned(file, MAX)).as(c).isEqualTo(tree(file, MAX));
        }
    }

    @Test
    void itsIdRuleIsTheContractsRule() throws Exception {
        int i = 0;
        for (String id : List.of("a", "A-z_0.9:x", "", " ", "a b", "é", "x".repeat(128), "x".repeat(129), "a/b",
                "a\\n", "ü", "a#")) {
            boolean contract = AggregateIds.isId(id.replace("\\n", "\n"));
            String item = ev("ItemUpserted", "item", id, "1", "{\"attributes\":{}}");
            String release = ev("ReleasePublished", "release", "r", "1",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"" + id + "\",\"revision\":1}]}");
            for (String c : List.of(item, release)) {
                Path file = dir.resolve("id-" + i++ + ".json");
                Files.writeString(file, "[" + c + "]");
                List<Object> scanned = scanned(file, 1 << 20);
                assertThat(scanned).as(c).isEqualTo(tree(file, 1 << 20));
                assertThat(scanned.get(0) instanceof EventsScanner.Scanned).as(c).isEqualTo(contract);
            }
        }
    }

    @Test
    void theTextAndReleaseLimitsAreTheSharedOnes() throws Exception {
        String ref = "{\"itemId\":\"a\",\"revision\":1},";
        assertThat(both(mapping("x".repeat(JsonLimits.MAX_TEXT_MEMBER_CHARS))).get(0))
                .isInstanceOf(EventsScanner.Scanned.class);
        assertThat(both(mapping("x".repeat(JsonLimits.MAX_TEXT_MEMBER_CHARS + 1)))).containsExactly(List.of(
                ProblemCode.INVALID_EVENT, "0", "e", "event 0 (id e): source must be a string of 1-4096 characters"));
        // at the count limit, so many references only meet the wire limit
        assertThat(both(release(ref.repeat(JsonLimits.MAX_RELEASE_ITEMS))).toString())
                .contains("on the wire").doesNotContain("at most");
        assertThat(both(release(ref.repeat(JsonLimits.MAX_RELEASE_ITEMS + 1)))).containsExactly(List.of(
                ProblemCode.INVALID_EVENT, "0", "e", "event 0 (id e): a release names at most 10000 items"));
    }

    /** The one event as both readers see it: the same, or the test fails. */
    private List<Object> both(String event) throws Exception {
        Path file = Files.createTempFile(dir, "event-", ".json");
        Files.writeString(file, "[" + event + "]");
        List<Object> scanned = scanned(file, 1 << 21);
        assertThat(scanned).as(event).isEqualTo(tree(file, 1 << 21));
        return scanned;
    }

    private static String mapping(String source) {
        return ev("MappingUpserted", "mapping", "m", "1", "{\"source\":\"" + source + "\",\"target\":\"b\"}");
    }

    private static String release(String items) {
        return ev("ReleasePublished", "release", "r", "1",
                "{\"visibility\":\"PUBLIC\",\"items\":[" + items.substring(0, items.length() - 1) + "]}");
    }

    @Test
    void agreesWithTheTreeReaderOnAGeneratedFile() {
        Path file = dir.resolve("generated.json");
        SnapshotEventsGenerator.write(file, 3000, 7);
        List<Object> scanned = scanned(file, 1 << 20);
        assertThat(scanned).hasSize(3001).isEqualTo(tree(file, 1 << 20));
    }

    /** Every event as the scanner sees it, or the problem it stops at. */
    private static List<Object> scanned(Path file, long max) {
        List<Object> out = new ArrayList<>();
        try (EventsScanner s = new EventsScanner(JSON, file, max)) {
            EventsScanner.Scanned e;
            while ((e = s.next()) != null) {
                out.add(e);
            }
            out.add(s.sha256());
        } catch (RejectedEventException e) {
            out.add(List.of(e.code(), String.valueOf(e.index()), String.valueOf(e.eventId()), e.getMessage()));
        }
        return out;
    }

    private static List<Object> tree(Path file, long max) {
        List<Object> out = new ArrayList<>();
        try (EventsFileReader r = new EventsFileReader(JSON, file)) {
            RawEvent raw;
            while ((raw = r.next()) != null) {
                SnapshotEvent e = SnapshotEvent.from(raw, max);
                Change c = e.change();
                out.add(new EventsScanner.Scanned(e.index(), e.id(), c.aggregateType(), c.aggregateId(),
                        e.aggregateVersion(), c instanceof Change.DeleteItem,
                        c instanceof Change.PutRelease p ? p.items() : List.of(), e.bytes()));
            }
            out.add(r.sha256());
        } catch (RejectedEventException e) {
            out.add(List.of(e.code(), String.valueOf(e.index()), String.valueOf(e.eventId()), e.getMessage()));
        }
        return out;
    }
}
