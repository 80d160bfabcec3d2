package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.resolver.support.ResolverIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The correctness gates of the bootstrap import against the real database: singleton logical transactions in
 * chunked commits, input order, equality with the one-event-per-commit reference, fail-fast chunks, the import
 * lock, the empty-destination rule and rejected files. Each test imports into its own stream.
 */
class BootstrapImportIT extends ResolverIT {

    private static final ParameterizedTypeReference<Map<String, Object>> MAP = new ParameterizedTypeReference<>() {
    };

    @Autowired
    BootstrapImporter importer;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    ObjectMapper json;
    @Autowired
    MeterRegistry registry;

    @TempDir
    Path dir;

    @Test
    void everyEventIsItsOwnLogicalTransactionAtItsInputPosition() throws IOException {
        Path file = generate(1500, 11);
        // the write meters are per instance (docs/metrics.md): this test's share is the difference
        double writesBefore = registry.get("resolver.writes").tags("outcome", "committed").counter().count();
        long commitsBefore = registry.get("resolver.write").tags("outcome", "committed").timer().count();
        ResponseEntity<Map<String, Object>> res = post("order", file, "?chunkEvents=64", "op");

        assertThat(res.getStatusCode().value()).as("%s", res.getBody()).isEqualTo(200);
        Map<String, Object> summary = res.getBody();
        assertThat(summary).containsEntry("status", "COMPLETED").containsEntry("events", 1500)
                .containsEntry("logicalTransactions", 1500).containsEntry("commits", 24)
                .containsEntry("firstPosition", 1).containsEntry("lastPosition", 1500);
        assertThat((Map<String, Object>) summary.get("chunks")).containsEntry("count", 24)
                .containsEntry("maxEvents", 64).containsEntry("minEvents", 1500 - 23 * 64);

        List<JsonNode> input = events(file);
        List<Map<String, Object>> rows = jdbc.sql("""
                SELECT position, event_type, aggregate_type, aggregate_id, revision, transaction_id,
                       transaction_ordinal, transaction_count, wire, chain_digest
                  FROM outbox WHERE tenant = 'acme' AND catalog = 'order' ORDER BY position
                """).query().listOfRows();
        assertThat(rows).hasSize(input.size());
        Set<UUID> transactionIds = new HashSet<>();
        String digest = ChainDigest.ZERO;
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = rows.get(i);
            JsonNode in = input.get(i);
            assertThat(((Number) row.get("position")).longValue()).isEqualTo(i + 1L);
            assertThat(row.get("event_type")).as("type at %d", i).isEqualTo(in.get("type").stringValue());
            assertThat(row.get("aggregate_type")).isEqualTo(in.get("aggregatetype").stringValue());
            assertThat(row.get("aggregate_id")).isEqualTo(in.get("subject").stringValue());
            assertThat(row.get("revision")).isEqualTo(in.get("aggregateversion").intValue());
            UUID tx = (UUID) row.get("transaction_id");
            assertThat(UuidV7.isV7(tx)).as("UUIDv7 at %d", i).isTrue();
            assertThat(transactionIds.add(tx)).as("distinct transaction id at %d", i).isTrue();
            assertThat(row.get("transaction_ordinal")).isEqualTo(0);
            assertThat(row.get("transaction_count")).isEqualTo(1);
            JsonNode wire = json.readTree((String) row.get("wire"));
            assertThat(wire.get("transactionId").stringValue()).isEqualTo(tx.toString());
            assertThat(wire.get("transactionOrdinal").intValue()).isZero();
            assertThat(wire.get("transactionCount").intValue()).isEqualTo(1);
            assertThat(wire.get("payload")).as("payload at %d", i).isEqualTo(expectedPayload(in));
            digest = ChainDigest.next(digest, (String) row.get("wire"));
            assertThat(row.get("chain_digest")).isEqualTo(digest);
        }
        assertThat(summary.get("chainDigest")).isEqualTo(digest);
        assertThat(jdbc.sql("SELECT position, chain_digest FROM stream_cursor WHERE tenant = 'acme' AND catalog = "
                + "'order'").query().singleRow()).containsEntry("position", 1500L).containsEntry("chain_digest", digest);
        assertThat(count("accepted_revision", "order")).isEqualTo(1500);
        // imported events count as logical writes, chunks as physical write transactions
        assertThat(registry.get("resolver.writes").tags("outcome", "committed").counter().count() - writesBefore)
                .isEqualTo(1500.0);
        assertThat(registry.get("resolver.write").tags("outcome", "committed").timer().count() - commitsBefore)
                .isEqualTo(24);
        assertThat(registry.get("resolver.stream.position").tags("catalog", "order").gauge().value())
                .isEqualTo(1500.0);
    }

    @Test
    void chunkedImportLeavesWhatTheOneEventPerCommitReferenceLeaves() {
        Path file = generate(1200, 23);
        // synchronous_commit only decides when a commit is durable, not what it writes: it keeps this test fast
        ImportReport oracle = importer.importFile(new StreamId("acme", "oracle"), file,
                ImportOptions.defaults().withChunkEvents(1).withSynchronousCommitOff(true), ImportListener.NONE);
        ImportReport chunked = importer.importFile(new StreamId("acme", "chunked"), file, ImportOptions.defaults(),
                ImportListener.NONE);
        ImportReport unbatched = importer.importFile(new StreamId("acme", "unbatched"), file,
                ImportOptions.defaults().withChunkEvents(500).withBatchedStatements(false)
                        .withSynchronousCommitOff(true), ImportListener.NONE);

        assertThat(oracle.commits()).isEqualTo(1200);
        assertThat(chunked.commits()).isEqualTo(12);
        assertThat(unbatched.commits()).isEqualTo(3);
        for (String table : List.of(
                "SELECT item_id, revision, attributes::text, deleted, epoch, position FROM item",
                "SELECT mapping_id, revision, source, target, epoch, position FROM mapping",
                "SELECT policy_id, revision, rules::text, epoch, position FROM policy",
                "SELECT release_id, revision, visibility, items::text, epoch, position FROM release",
                "SELECT aggregate_type, aggregate_id, revision, content::text, deleted, epoch, position "
                        + "FROM accepted_revision",
                "SELECT epoch, position, transaction_ordinal, transaction_count, event_type, aggregate_type, "
                        + "aggregate_id, revision FROM outbox")) {
            List<Map<String, Object>> reference = rows(table, "oracle");
            assertThat(reference).as(table).isNotEmpty();
            assertThat(rows(table, "chunked")).as(table).isEqualTo(reference);
            assertThat(rows(table, "unbatched")).as(table).isEqualTo(reference);
        }
        List<String> reference = normalizedWires("oracle");
        assertThat(reference).hasSize(1200);
        assertThat(normalizedWires("chunked")).isEqualTo(reference);
        assertThat(normalizedWires("unbatched")).isEqualTo(reference);
        for (String catalog : List.of("oracle", "chunked", "unbatched")) {
            assertThat(jdbc.sql("SELECT count(DISTINCT transaction_id) FROM outbox WHERE catalog = ?")
                    .params(catalog).query(Long.class).single()).isEqualTo(1200L);
        }
    }

    @Test
    void aFailingChunkRollsBackWholeAndLeavesExactlyTheChunksBeforeIt() {
        Path file = generate(700, 5);
        List<JsonNode> input = events(file);
        int poisoned = -1;
        for (int i = 250; i < input.size() && poisoned < 0; i++) {
            JsonNode e = input.get(i);
            if (e.get("type").stringValue().equals("ItemUpserted") && e.get("aggregateversion").intValue() == 1) {
                poisoned = i;
            }
        }
        assertThat(poisoned).isBetween(250, 699);
        int failingChunk = poisoned / 100 + 1;
        String item = input.get(poisoned).get("subject").stringValue();
        jdbc.sql("""
                CREATE FUNCTION poison_item() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF NEW.catalog = 'poisoned' AND NEW.item_id = '%s' THEN
                    RAISE EXCEPTION 'item %% is poisoned', NEW.item_id USING ERRCODE = 'check_violation';
                  END IF;
                  RETURN NEW;
                END $$
                """.formatted(item)).update();
        jdbc.sql("CREATE TRIGGER poison_item BEFORE INSERT OR UPDATE ON item FOR EACH ROW "
                + "EXECUTE FUNCTION poison_item()").update();
        try {
            ResponseEntity<Map<String, Object>> res = post("poisoned", file, "?diagnoseFailedChunk=true", "op");

            assertThat(res.getStatusCode().value()).as("%s", res.getBody()).isEqualTo(500);
            Map<String, Object> summary = (Map<String, Object>) res.getBody().get("import");
            assertThat(summary).containsEntry("status", "FAILED").containsEntry("commits", failingChunk - 1)
                    .containsEntry("logicalTransactions", (failingChunk - 1) * 100);
            Map<String, Object> failure = (Map<String, Object>) summary.get("failure");
            List<String> chunkIds = new ArrayList<>();
            for (int i = (failingChunk - 1) * 100; i < Math.min(failingChunk * 100, input.size()); i++) {
                chunkIds.add(input.get(i).get("id").stringValue());
            }
            assertThat(failure).containsEntry("chunk", failingChunk)
                    .containsEntry("firstIndex", (failingChunk - 1) * 100).containsEntry("eventIds", chunkIds)
                    .containsEntry("sqlState", "23514");
            // the database's own words (the trigger's message, values, names) stay in the service log
            assertThat(String.valueOf(res.getBody())).doesNotContain("is poisoned").doesNotContain("PSQLException")
                    .doesNotContain("java.");
            assertThat((String) failure.get("action")).contains("with a reset (--reset REASON, REST ?reset=REASON)");
            assertThat((Map<String, Object>) failure.get("firstFailingEvent"))
                    .containsEntry("index", poisoned)
                    .containsEntry("eventId", input.get(poisoned).get("id").stringValue())
                    .containsEntry("sqlState", "23514");

            long committed = (failingChunk - 1) * 100L;
            assertThat(jdbc.sql("SELECT count(*), coalesce(max(position), 0) FROM outbox WHERE catalog = 'poisoned'")
                    .query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2))).single())
                    .containsExactly(committed, committed);
            assertThat(jdbc.sql("SELECT position FROM stream_cursor WHERE catalog = 'poisoned'").query(Long.class)
                    .single()).isEqualTo(committed);
            assertThat(count("accepted_revision", "poisoned")).isEqualTo(committed);
            for (String table : List.of("item", "mapping", "policy", "release", "accepted_revision")) {
                assertThat(jdbc.sql("SELECT count(*) FROM " + table + " WHERE catalog = 'poisoned' AND position > ?")
                        .params(committed).query(Long.class).single()).as(table).isZero();
            }
        } finally {
            jdbc.sql("DROP TRIGGER poison_item ON item").update();
            jdbc.sql("DROP FUNCTION poison_item()").update();
        }
    }

    @Test
    void aSecondImporterFailsOnTheLockBeforeWritingAnything() throws Exception {
        StreamId stream = new StreamId("acme", "race");
        Path first = generate(400, 3);
        Path second = generate(300, 4);
        CountDownLatch firstChecked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<ImportReport> firstImport = CompletableFuture.supplyAsync(() -> importer.importFile(stream,
                first, ImportOptions.defaults(), new ImportListener() {
                    @Override
                    public void destinationChecked() {
                        firstChecked.countDown();
                        await(release);
                    }
                }));
        assertThat(firstChecked.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            // the first importer has checked the destination and holds the lock but has written nothing yet:
            // without the lock, the second one would find the stream empty too and write
            assertThatThrownBy(() -> importer.importFile(stream, second, ImportOptions.defaults(),
                    ImportListener.NONE)).isInstanceOfSatisfying(ApiException.class,
                            e -> assertThat(e.code()).isEqualTo(ProblemCode.IMPORT_IN_PROGRESS));
            assertThat(count("outbox", "race")).isZero();
            assertThat(count("stream_cursor", "race")).isZero();
        } finally {
            release.countDown();
        }
        ImportReport report = firstImport.get(60, TimeUnit.SECONDS);
        assertThat(report.committedEvents()).isEqualTo(400);
        assertThat(jdbc.sql("SELECT count(*), count(DISTINCT transaction_id), max(position) FROM outbox "
                + "WHERE catalog = 'race'").query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3)))
                .single()).containsExactly(400L, 400L, 400L);

        // once the first import is done the lock is free again; the stream is simply no longer empty
        assertThatThrownBy(() -> importer.importFile(stream, second, ImportOptions.defaults(), ImportListener.NONE))
                .isInstanceOfSatisfying(ApiException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.DESTINATION_NOT_EMPTY));
    }

    @Test
    void theRestEndpointAnswersImportInProgressWhileTheDocumentedLockIsHeld() throws Exception {
        Path file = generate(50, 9);
        try (Connection c = dataSource.getConnection()) {
            var held = c.prepareStatement("SELECT pg_try_advisory_lock(?, hashtext(?))");
            held.setInt(1, ImportLock.LOCK_CLASS);
            held.setString(2, "acme/locked");
            try (var rs = held.executeQuery()) {
                rs.next();
                assertThat(rs.getBoolean(1)).isTrue();
            }
            try {
                ResponseEntity<Map<String, Object>> res = post("locked", file, "", "op");
                assertThat(res.getStatusCode().value()).isEqualTo(409);
                assertThat(res.getBody()).containsEntry("code", "IMPORT_IN_PROGRESS");
                assertThat(count("stream_cursor", "locked")).isZero();
            } finally {
                c.createStatement().execute("SELECT pg_advisory_unlock_all()");
            }
        }
        assertThat(post("locked", file, "", "op").getStatusCode().value()).isEqualTo(200);
        // the importer gave its lock back: the connection it used is back in the pool without it
        assertThat(jdbc.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = ?")
                .params(ImportLock.LOCK_CLASS).query(Long.class).single()).isZero();
    }

    @Test
    void aStreamThatWasWrittenIsRefused() {
        ResponseEntity<Map<String, Object>> write = client("w").put().uri("/v1/streams/acme/written/items/sku-1")
                .contentType(MediaType.APPLICATION_JSON).body("{\"attributes\":{\"name\":\"x\"}}").retrieve()
                .toEntity(MAP);
        assertThat(write.getStatusCode().value()).isEqualTo(200);

        ResponseEntity<Map<String, Object>> res = post("written", generate(20, 1), "", "op");
        assertThat(res.getStatusCode().value()).isEqualTo(409);
        assertThat(res.getBody()).containsEntry("code", "DESTINATION_NOT_EMPTY");
        assertThat(count("outbox", "written")).isEqualTo(1);
        assertThat(count("accepted_revision", "written")).isEqualTo(1);
    }

    @Test
    void aLiveWriteBetweenChunksIsRefusedByTheFenceAndTheImportCompletes() {
        StreamId stream = new StreamId("acme", "interleaved");
        Path file = generate(300, 8);
        List<Integer> statuses = new ArrayList<>();
        ImportReport report = importer.importFile(stream, file, ImportOptions.defaults(), new ImportListener() {
            @Override
            public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
                if (chunk == 1) {
                    statuses.add(client("w").put().uri("/v1/streams/acme/interleaved/items/live-1")
                            .contentType(MediaType.APPLICATION_JSON).body("{\"attributes\":{}}").retrieve()
                            .toBodilessEntity().getStatusCode().value());
                }
            }
        });
        assertThat(report.status()).isEqualTo(ImportReport.Status.COMPLETED);
        assertThat(statuses).containsExactly(409);
        assertThat(jdbc.sql("SELECT count(*), max(position) FROM outbox WHERE catalog = 'interleaved'")
                .query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2))).single()).containsExactly(300L, 300L);
        assertThat(jdbc.sql("SELECT count(*) FROM item WHERE catalog = 'interleaved' AND item_id = 'live-1'")
                .query(Long.class).single()).isZero();
    }

    @Test
    void waitingUntilServedWithoutAProductUrlIsRefusedBeforeAnythingIsWritten() {
        Path file = generate(20, 4);
        ResponseEntity<Map<String, Object>> res = post("no-product", file, "?waitReady=true", "op");
        assertThat(res.getStatusCode().value()).isEqualTo(400);
        assertThat(res.getBody()).containsEntry("code", "INVALID_BODY");
        assertThat(String.valueOf(res.getBody().get("detail"))).contains("BOOTSTRAP_PRODUCT_URL");
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE catalog = 'no-product'").query(Long.class)
                .single()).isZero();
    }

    @Test
    void badFilesAreRejectedWithTheFirstBadEventAndWriteNothing() throws IOException {
        String good = "{\"specversion\":\"1.0\",\"id\":\"e-%d\",\"type\":\"ItemUpserted\",\"subject\":\"sku-%d\","
                + "\"aggregatetype\":\"item\",\"aggregateversion\":1,\"data\":{\"attributes\":{\"n\":%d}}}";
        StringBuilder late = new StringBuilder("[");
        for (int i = 0; i < 500; i++) {
            late.append(good.formatted(i, i, i)).append(",\n");
        }
        late.append(good.formatted(500, 3, 500)).append("]");
        record Case(String catalog, String body, String query, int status, String code, Integer index, String id) {
        }
        List<Case> cases = List.of(
                new Case("bad-array", "{\"events\":[]}", "", 400, "INVALID_BODY", null, null),
                new Case("bad-json", "[" + good.formatted(0, 0, 0) + ",{\"id\":", "", 400, "INVALID_BODY", 1, null),
                new Case("bad-late", late.toString(), "", 422, "INVALID_EVENT", 500, "e-500"),
                new Case("bad-duplicate", "[" + good.formatted(0, 0, 0) + "," + good.formatted(0, 1, 1) + "]", "",
                        422, "INVALID_EVENT", 1, "e-0"),
                new Case("bad-type", "[" + good.formatted(0, 0, 0).replace("ItemUpserted", "ItemMoved") + "]", "",
                        422, "INVALID_EVENT", 0, "e-0"),
                new Case("bad-size", "[" + good.formatted(0, 0, 0) + "," + good.formatted(1, 1, 1234567) + "]",
                        "?maxEventBytes=" + good.formatted(0, 0, 0).length(), 422, "INVALID_EVENT", 1, "e-1"),
                new Case("bad-option", "[" + good.formatted(0, 0, 0) + "]", "?chunkEvents=501", 400, "INVALID_BODY",
                        null, null));
        for (Case c : cases) {
            Path file = dir.resolve(c.catalog() + ".json");
            Files.writeString(file, c.body());
            ResponseEntity<Map<String, Object>> res = post(c.catalog(), file, c.query(), "op");
            assertThat(res.getStatusCode().value()).as(c.catalog() + " %s", res.getBody()).isEqualTo(c.status());
            assertThat(res.getHeaders().getContentType().toString()).startsWith("application/problem+json");
            assertThat(res.getBody()).as(c.catalog()).containsEntry("code", c.code());
            if (!c.catalog().equals("bad-option")) {
                assertThat(res.getBody()).as(c.catalog()).containsEntry("index", c.index())
                        .containsEntry("eventId", c.id());
            }
            assertThat(count("stream_cursor", c.catalog())).as(c.catalog()).isZero();
            assertThat(count("outbox", c.catalog())).as(c.catalog()).isZero();
            assertThat(count("accepted_revision", c.catalog())).as(c.catalog()).isZero();
            assertThat(count("item", c.catalog())).as(c.catalog()).isZero();
        }
    }

    /**
     * Input the product could not consume, or PostgreSQL could not store, fails validation: 400 naming the event,
     * before the first chunk commits (it used to fail in chunk 3 with two events committed, and the retry got
     * {@code DESTINATION_NOT_EMPTY}). The same stream then takes a good file.
     */
    @Test
    void hostileValuesAreRefusedBeforeTheFirstChunkCommits() throws IOException {
        String event = "{\"specversion\":\"1.0\",\"id\":\"e-%d\",\"type\":\"ItemUpserted\",\"subject\":\"sku-%d\","
                + "\"aggregatetype\":\"item\",\"aggregateversion\":1,\"data\":{\"attributes\":%s}}";
        String deep = "{\"a\":".repeat(JsonLimits.MAX_DEPTH) + "{}" + "}".repeat(JsonLimits.MAX_DEPTH);
        String atDepth = "{\"a\":".repeat(JsonLimits.MAX_DEPTH - 1) + "{}" + "}".repeat(JsonLimits.MAX_DEPTH - 1);
        StringBuilder wide = new StringBuilder("{\"n\":[");
        wide.append("1e6,".repeat(300_000)).append("1]}"); // 1.2 MB in, 3 MB as a wire
        record Case(String name, String attributes, String query) {
        }
        List<Case> cases = List.of(
                new Case("NUL in a value", "{\"n\":\"a\\u0000b\"}", ""),
                new Case("NUL in a name", "{\"a\\u0000\":1}", ""),
                new Case("unpaired surrogate", "{\"n\":\"\\udc00\"}", ""),
                new Case("one level too deep", deep, ""),
                new Case("a string one character too long",
                        "{\"s\":\"" + "x".repeat(JsonLimits.MAX_STRING_CHARS + 1) + "\"}", ""),
                new Case("a wire over the limit", wide.toString(), "&maxEventBytes=4194304"));
        int n = 0;
        for (Case c : cases) {
            String catalog = "hostile-" + n++;
            String body = "[" + event.formatted(0, 0, "{\"n\":1}") + "," + event.formatted(1, 1, atDepth) + ","
                    + event.formatted(2, 2, c.attributes()) + "," + event.formatted(3, 3, "{}") + "]";
            Path file = dir.resolve(catalog + ".json");
            Files.writeString(file, body);
            // chunks of one event: a file judged only while writing would commit two events first
            ResponseEntity<Map<String, Object>> res = post(catalog, file, "?chunkEvents=1" + c.query(), "op");
            assertThat(res.getStatusCode().value()).as(c.name() + " %s", res.getBody()).isEqualTo(400);
            assertThat(res.getBody()).as(c.name()).containsEntry("code", "INVALID_BODY").containsEntry("index", 2);
            assertThat(count("stream_cursor", catalog)).as(c.name()).isZero();
            assertThat(count("outbox", catalog)).as(c.name()).isZero();
            assertThat(count("item", catalog)).as(c.name()).isZero();
            assertThat(String.valueOf(res.getBody())).as(c.name()).doesNotContain("PSQL").doesNotContain("java.");

            Files.writeString(file, "[" + event.formatted(0, 0, "{\"n\":1}") + "," + event.formatted(1, 1, atDepth)
                    + "]");
            ResponseEntity<Map<String, Object>> retry = post(catalog, file, "?chunkEvents=1", "op");
            assertThat(retry.getStatusCode().value()).as(c.name() + " retry %s", retry.getBody()).isEqualTo(200);
            assertThat(count("outbox", catalog)).as(c.name()).isEqualTo(2);
        }
    }

    @Test
    void onlyOperatorsImport() {
        Path file = generate(10, 2);
        assertThat(post("auth", file, "", "w").getStatusCode().value()).isEqualTo(403);
        assertThat(post("auth", file, "", null).getStatusCode().value()).isEqualTo(401);
        assertThat(count("outbox", "auth")).isZero();
    }

    private ResponseEntity<Map<String, Object>> post(String catalog, Path file, String query, String token) {
        try {
            return client(token).post().uri("/v1/streams/acme/" + catalog + "/bootstrap-import" + query)
                    .contentType(MediaType.APPLICATION_JSON).body(Files.readAllBytes(file)).retrieve().toEntity(MAP);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path generate(int events, long seed) {
        Path file = dir.resolve("events-" + events + "-" + seed + ".json");
        SnapshotEventsGenerator.write(file, events, seed);
        return file;
    }

    private List<JsonNode> events(Path file) {
        List<JsonNode> out = new ArrayList<>();
        json.readTree(file.toFile()).forEach(out::add);
        return out;
    }

    /** The integration event payload the write path derives from an input event's data. */
    private JsonNode expectedPayload(JsonNode in) {
        ObjectNode p = json.createObjectNode();
        JsonNode data = in.get("data");
        switch (in.get("type").stringValue()) {
            case "ItemUpserted" -> p.set("attributes", data.get("attributes"));
            case "MappingUpserted" -> p.set("source", data.get("source")).set("target", data.get("target"));
            case "PolicyUpserted" -> p.set("rules", data.get("rules"));
            case "ReleasePublished" -> p.set("visibility", data.get("visibility")).set("items", data.get("items"));
            default -> {
            }
        }
        return p;
    }

    private long count(String table, String catalog) {
        return jdbc.sql("SELECT count(*) FROM " + table + " WHERE tenant = 'acme' AND catalog = ?").params(catalog)
                .query(Long.class).single();
    }

    private List<Map<String, Object>> rows(String select, String catalog) {
        return jdbc.sql(select + " WHERE tenant = 'acme' AND catalog = ? ORDER BY 1, 2, 3").params(catalog).query()
                .listOfRows();
    }

    private List<String> normalizedWires(String catalog) {
        return jdbc.sql("SELECT wire FROM outbox WHERE tenant = 'acme' AND catalog = ? ORDER BY position")
                .params(catalog).query(String.class).list().stream().map(w -> {
                    ObjectNode node = (ObjectNode) json.readTree(w);
                    node.remove(List.of("catalog", "eventId", "transactionId", "occurredAt"));
                    return node.toString();
                }).toList();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test did not release the importer");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
