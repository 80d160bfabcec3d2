package com.acme.catalog.bench;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A product rebuild of N items plus a tail of T events committed after the export's snapshot, both jars running:
 * {@code POST /v1/rebuilds} on the product, then the phases from {@code GET /v1/rebuilds/{id}}. The resolver is
 * seeded with SQL (N items, N/1000 PUBLIC releases naming 500 items each, 1000 mappings, 10 policies; the events
 * before N count as pruned, with the chain digest at N recorded as the pruner does). The tail: T item upserts
 * (revision 1 → 2, one event per transaction, built exactly as the resolver's write path builds them: wire,
 * chain digest, outbox row, accepted revision, current row, cursor) written in one SQL transaction as soon as the
 * rebuild reports LOADING (its export is READY, so the tail is after the snapshot and the catch-up must apply it).
 * Baseline in the same run: {@code COPY (SELECT …) TO STDOUT} of the same current rows from the resolver database
 * piped into {@code COPY … FROM STDIN} of plain tables shaped like the product's, plus their primary keys.
 */
final class RebuildScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String T = "bench";
    private static final String C = "big";
    private static final String SEED_DIGEST = "5eed".repeat(16);

    @Override
    public String name() {
        return "rebuild";
    }

    @Override
    public String description() {
        return "product rebuild of N items + T tail events vs raw COPY out/in + indexes "
                + "[--items=1000000 --tail=100000 --page-limit=5000 --resolver-page-limit=5000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int items = o.integer("items", 1_000_000);
        int tail = o.integer("tail", 100_000);
        int pageLimit = o.integer("page-limit", 5000);
        int resolverPageLimit = o.integer("resolver-page-limit", 5000);
        String memory = o.string("maintenance-work-mem", "256MB");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("tail", tail);
        out.put("pageLimit", pageLimit);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("loadAverageBefore", loadAverage());
        Path objects = Files.createTempDirectory("bench-rebuild-objects-");
        String tokens = "op=operator;w=writer;r=relay;c=consumer";
        try (TestDatabase rdb = TestDatabase.create("bench_rebuild_resolver");
             TestDatabase cdb = TestDatabase.create("bench_rebuild_control");
             TestDatabase pdb = TestDatabase.create("bench_rebuild_product");
             ServiceProcess resolver = ServiceProcess.start("resolver-service", 18093, ControlDatabase.env(cdb, Map.of(
                     "SPRING_DATASOURCE_URL", rdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", rdb.username(),
                     "OBJECT_STORE_URI", "file:" + objects, "RELAY_TOKEN", "r", "SECURITY_TOKENS", tokens,
                     "RELAY_ALLOWED_DELIVERY_URLS", "http://localhost:18094/v1/inbox/",
                     "SPRING_APPLICATION_JSON", "{\"export\":{\"page\":{\"max-limit\":" + resolverPageLimit + "}}}")));
             ServiceProcess product = ServiceProcess.start("product-service", 18094, Map.of(
                     "SPRING_DATASOURCE_URL", pdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", pdb.username(),
                     "RESOLVER_URL", resolver.baseUrl(), "RESOLVER_TOKEN", "c", "OBJECT_STORE_URI", "file:" + objects,
                     "PRODUCT_DELIVERY_URL", "http://localhost:18094/v1/inbox/events", "SECURITY_TOKENS", tokens,
                     "SPRING_APPLICATION_JSON", "{\"product\":{\"rebuild\":{\"page-limit\":" + pageLimit
                             + ",\"maintenance-work-mem\":\"" + memory + "\"}}}"))) {
            WriteScenario.progress("seeding %d items with SQL", items);
            long t0 = System.nanoTime();
            seed(rdb, items);
            out.put("seedSeconds", seconds(System.nanoTime() - t0));

            WriteScenario.progress("raw baseline: COPY out of the resolver, COPY into the product db, indexes");
            Map<String, Object> raw = raw(rdb, pdb, memory);
            out.put("raw", raw);
            WriteScenario.progress("raw %s", raw);

            HttpClient http = HttpClient.newHttpClient();
            Tail prepared = prepareTail(items, tail);
            Map<String, Long> cpuBefore = cpu(resolver, rdb, product, pdb);
            long start = System.nanoTime();
            String id = send(http, "POST", product.baseUrl() + "/v1/rebuilds", "{\"tenant\":\"" + T
                    + "\",\"catalog\":\"" + C + "\"}").path("rebuildId").stringValue();
            JsonNode r;
            Map<String, Object> tailOut = new LinkedHashMap<>();
            boolean tailWritten = false;
            while (true) {
                r = send(http, "GET", product.baseUrl() + "/v1/rebuilds/" + id, null);
                String phase = r.path("phase").stringValue();
                if (!tailWritten && !phase.equals("LEASING") && !phase.equals("EXPORTING")) {
                    WriteScenario.progress("rebuild is %s: writing the %d tail events", phase, tail);
                    long w0 = System.nanoTime();
                    writeTail(rdb, items, tail, prepared);
                    tailOut.put("writeSeconds", seconds(System.nanoTime() - w0));
                    String after = send(http, "GET", product.baseUrl() + "/v1/rebuilds/" + id, null).path("phase")
                            .stringValue();
                    tailOut.put("phaseWhenWritten", phase);
                    tailOut.put("phaseWhenCommitted", after);
                    tailOut.put("committedBeforeCatchUp", phase.equals("LOADING") && after.equals("LOADING"));
                    tailWritten = true;
                    WriteScenario.progress("tail committed (%s) while the rebuild was %s", tailOut, after);
                }
                if (phase.equals("DONE") || phase.equals("FAILED")) {
                    break;
                }
                Thread.sleep(100);
            }
            long wall = System.nanoTime() - start;
            Map<String, Long> cpuAfter = cpu(resolver, rdb, product, pdb);
            if (!r.path("phase").stringValue().equals("DONE")) {
                throw new IllegalStateException("rebuild did not finish: " + r);
            }
            out.put("tailWrite", tailOut);
            out.put("rebuild", r);
            out.putAll(phases(r, wall, tail, raw));
            Map<String, Object> cpuSeconds = new LinkedHashMap<>();
            cpuAfter.forEach((k, v) -> cpuSeconds.put(k, Latencies.round((v - cpuBefore.get(k)) / 1000.0)));
            out.put("cpuSeconds", cpuSeconds);
            out.put("resolverPages", resolverPages(http, resolver, items, tail, pageLimit));
            out.put("checksumsEqual", checksumsEqual(http, resolver, product, items + tail));
            out.put("loadAverageAfter", loadAverage());
        } finally {
            ExportScenario.deleteTree(objects);
        }
        return out;
    }

    /** The figures the issue asks for, from the rebuild's phase and step durations. */
    private static Map<String, Object> phases(JsonNode r, long wallNanos, int tail, Map<String, Object> raw) {
        JsonNode p = r.path("phaseMillis");
        JsonNode s = r.path("stepMillis");
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> phase = new LinkedHashMap<>();
        phase.put("lease", ms(p, "LEASING"));
        phase.put("export", ms(p, "EXPORTING"));
        phase.put("load", ms(p, "LOADING"));
        phase.put("loadCopy", ms(s, "load.copy"));
        phase.put("loadDerive", ms(s, "load.derive"));
        phase.put("loadPublicView", ms(s, "load.publicView"));
        phase.put("indexBuild", ms(s, "load.indexes"));
        phase.put("attach", ms(s, "load.attach"));
        phase.put("catchUp", ms(p, "CATCHING_UP"));
        phase.put("catchUpFetch", ms(s, "catchUp.fetch"));
        phase.put("catchUpApply", ms(s, "catchUp.apply"));
        phase.put("cutover", ms(p, "CUTTING_OVER"));
        m.put("phaseSeconds", phase);
        double endToEnd = seconds(wallNanos);
        m.put("endToEndSeconds", endToEnd);
        double rawTotal = (Double) raw.get("totalSeconds");
        m.put("ratioEndToEndToRaw", Latencies.round(endToEnd / rawTotal));
        double export = (Double) phase.get("export");
        double load = (Double) phase.get("load");
        m.put("ratioExportPlusLoadToRaw", Latencies.round((export + load) / rawTotal));
        long events = s.path("catchUp.events").asLong();
        double catchUp = (Double) phase.get("catchUp");
        double apply = (Double) phase.get("catchUpApply");
        double fetch = (Double) phase.get("catchUpFetch");
        m.put("catchUpEvents", events);
        m.put("catchUpEventsPerSecond", Latencies.round(events / Math.max(catchUp, 0.001)));
        m.put("catchUpApplyEventsPerSecond", Latencies.round(events / Math.max(apply, 0.001)));
        m.put("catchUpFetchEventsPerSecond", Latencies.round(events / Math.max(fetch, 0.001)));
        m.put("targets", "end to end <= 2.0x raw; catch-up >= 50000 events/s");
        // a restarted rebuild (e.g. a 410) reloads an export taken after the tail: its figures are not this scenario
        m.put("valid", r.path("attempt").asInt() == 1 && events >= tail);
        m.put("targetsMet", endToEnd / rawTotal <= 2.0 && events / Math.max(catchUp, 0.001) >= 50_000
                && events >= tail);
        return m;
    }

    /**
     * CPU milliseconds used so far by each service's JVM and by the database backends of its database (those alive
     * now: the pools keep theirs; the benchmark's own tail-write connection is opened and closed in between and not
     * counted), from /proc. Wall time on a shared machine depends on the others' load; CPU time much less.
     */
    private static Map<String, Long> cpu(ServiceProcess resolver, TestDatabase rdb, ServiceProcess product,
            TestDatabase pdb) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("productJvm", ProcessCpu.millis(product.pid()));
        m.put("productDatabase", ProcessCpu.databaseBackendsMillis(pdb));
        m.put("resolverJvm", ProcessCpu.millis(resolver.pid()));
        m.put("resolverDatabase", ProcessCpu.databaseBackendsMillis(rdb));
        return m;
    }



    private static double ms(JsonNode n, String key) {
        return Latencies.round(n.path(key).asLong() / 1000.0);
    }

    /**
     * N items (revision 1), N/1000 PUBLIC releases of 500 items with their revisions, 1000 mappings, 10 policies,
     * cursor at N.
     */
    private static void seed(TestDatabase db, int items) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("SET search_path = resolver");
            st.execute("INSERT INTO stream_cursor (tenant, catalog, epoch, position, chain_digest) VALUES ('" + T
                    + "', '" + C + "', 1, " + items + ", '" + SEED_DIGEST + "')");
            // events 1..N are gone (pruned); the pruner keeps the digest at the last pruned position
            st.execute("INSERT INTO stream_retention (tenant, catalog, epoch, pruned_through, pruned_at) VALUES ('"
                    + T + "', '" + C + "', 1, " + items + ", now())");
            st.execute("INSERT INTO outbox_pruned_digest (tenant, catalog, epoch, position, chain_digest) VALUES ('"
                    + T + "', '" + C + "', 1, " + items + ", '" + SEED_DIGEST + "')");
            st.execute("""
                    INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                    SELECT '%s', '%s', 'sku-' || g, 1,
                           jsonb_build_object('name', 'Trail runner ' || g, 'price', g %% 1000,
                                              'colour', 'blue, "navy"', 'tags', jsonb_build_array('run', 'trail')),
                           false, 1, g
                      FROM generate_series(1, %d) g
                    """.formatted(T, C, items));
            st.execute("""
                    INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
                    SELECT '%s', '%s', 'rel-' || r, 1, 'PUBLIC',
                           (SELECT jsonb_agg(jsonb_build_object('itemId', 'sku-' || (r * 1000 + i), 'revision', 1))
                              FROM generate_series(1, 500) i),
                           1, r
                      FROM generate_series(0, %d) r
                    """.formatted(T, C, items / 1000 - 1));
            // each release's revision history, as the write path records it: the product's load takes a release's
            // position from its revision and refuses an export whose current release has none (ReleasePositions)
            st.execute("""
                    INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content,
                                                   deleted, epoch, position, event_id)
                    SELECT tenant, catalog, 'release', release_id, revision,
                           jsonb_build_object('visibility', visibility, 'items', items), false, epoch, position,
                           gen_random_uuid()
                      FROM release WHERE tenant = '%s' AND catalog = '%s'
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
                    SELECT '%s', '%s', 'map-' || g, 1, 'sku-' || g, 'sku-' || (g + 1), 1, g
                      FROM generate_series(1, 1000) g
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
                    SELECT '%s', '%s', 'pol-' || g, 1, jsonb_build_object('maxPrice', g * 100), 1, g
                      FROM generate_series(1, 10) g
                    """.formatted(T, C));
            st.execute("VACUUM ANALYZE item");
            st.execute("VACUUM ANALYZE release");
        }
    }

    /**
     * T item upserts after N, as the resolver's write path makes them (see {@code ChangeApplier} and
     * {@code EventAppender}): one transaction each, revision 1 → 2 depending on revision 1, chained digests.
     */
    private static Tail prepareTail(int items, int tail) {
        StringBuilder csv = new StringBuilder(tail * 600);
        String digest = SEED_DIGEST;
        String occurred = Instant.now().toString();
        for (int k = 1; k <= tail; k++) {
            long position = items + k;
            UUID eventId = UuidV7.next();
            UUID txId = UuidV7.next();
            String id = "sku-" + k;
            String attributes = "{\"name\":\"Trail runner " + k + " v2\",\"price\":" + (k % 1000 + 1)
                    + ",\"tags\":[\"run\",\"trail\",\"tail\"]}";
            String wire = "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\",\"epoch\":1,\"position\":" + position
                    + ",\"eventId\":\"" + eventId + "\",\"transactionId\":\"" + txId
                    + "\",\"transactionOrdinal\":0,\"transactionCount\":1,\"type\":\"ItemUpserted\""
                    + ",\"aggregateType\":\"item\",\"aggregateId\":\"" + id + "\",\"revision\":2,\"dependsOn\":"
                    + "[{\"aggregateType\":\"item\",\"aggregateId\":\"" + id + "\",\"revision\":1}],\"occurredAt\":\""
                    + occurred + "\",\"payload\":{\"attributes\":" + attributes + "}}";
            digest = ChainDigest.next(digest, wire);
            csv.append(position).append(',').append(eventId).append(',').append(txId).append(',').append(id)
                    .append(',').append(quote(attributes)).append(',').append(quote(wire)).append(',').append(digest)
                    .append('\n');
        }
        return new Tail(csv.toString(), digest, occurred);
    }

    /** The tail's rows as CSV (built before the rebuild starts), the digest at its end and its occurredAt. */
    private record Tail(String csv, String digest, String occurred) {
    }

    private static void writeTail(TestDatabase db, int items, int tail, Tail t) throws Exception {
        String digest = t.digest();
        String occurred = t.occurred();
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET search_path = resolver");
                st.execute("SELECT position FROM stream_cursor WHERE tenant = '" + T + "' AND catalog = '" + C
                        + "' FOR UPDATE");
                st.execute("CREATE TEMP TABLE tail (position bigint, event_id uuid, transaction_id uuid, "
                        + "item_id text, attributes jsonb, wire text, chain_digest text) ON COMMIT DROP");
                new CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class))
                        .copyIn("COPY tail FROM STDIN WITH (FORMAT csv)", new java.io.StringReader(t.csv()));
                st.execute("ANALYZE tail");
                st.execute("""
                        INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id,
                                            transaction_ordinal, transaction_count, event_type, aggregate_type,
                                            aggregate_id, revision, wire, chain_digest, occurred_at)
                        SELECT '%1$s', '%2$s', 1, position, event_id, transaction_id, 0, 1, 'ItemUpserted', 'item',
                               item_id, 2, wire, chain_digest, '%3$s'::timestamptz FROM tail ORDER BY position
                        """.formatted(T, C, occurred));
                st.execute("""
                        INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision,
                                                       content, deleted, epoch, position, event_id)
                        SELECT '%1$s', '%2$s', 'item', item_id, 2, jsonb_build_object('attributes', attributes),
                               false, 1, position, event_id FROM tail
                        """.formatted(T, C));
                st.execute("""
                        UPDATE item i SET revision = 2, attributes = t.attributes, position = t.position,
                                          updated_at = now()
                          FROM tail t WHERE i.tenant = '%1$s' AND i.catalog = '%2$s' AND i.item_id = t.item_id
                        """.formatted(T, C));
                try (PreparedStatement ps = c.prepareStatement("UPDATE stream_cursor SET position = ?, "
                        + "chain_digest = ?, updated_at = now() WHERE tenant = ? AND catalog = ?")) {
                    ps.setLong(1, (long) items + tail);
                    ps.setString(2, digest);
                    ps.setString(3, T);
                    ps.setString(4, C);
                    ps.executeUpdate();
                }
            }
            c.commit();
        }
    }

    private static String quote(String s) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /**
     * The floor: the same current rows COPY'd out of the resolver and into plain tables of the product database
     * (columns as the product's partitions), then the same primary keys built, with the same
     * {@code maintenance_work_mem}. Runs before the rebuild, on the seeded state.
     */
    private static Map<String, Object> raw(TestDatabase rdb, TestDatabase pdb, String memory) throws Exception {
        String[][] tables = {
            {"item", "item_id, revision, attributes, deleted", "(generation_id bigint NOT NULL, item_id text NOT NULL, "
                    + "revision integer NOT NULL, attributes jsonb NOT NULL, deleted boolean NOT NULL, "
                    + "epoch bigint NOT NULL, position bigint NOT NULL)", "generation_id, item_id"},
            {"mapping", "mapping_id, revision, source, target", "(generation_id bigint NOT NULL, mapping_id text "
                    + "NOT NULL, revision integer NOT NULL, source text NOT NULL, target text NOT NULL, "
                    + "epoch bigint NOT NULL, position bigint NOT NULL)", "generation_id, mapping_id"},
            {"policy", "policy_id, revision, rules", "(generation_id bigint NOT NULL, policy_id text NOT NULL, "
                    + "revision integer NOT NULL, rules jsonb NOT NULL, epoch bigint NOT NULL, "
                    + "position bigint NOT NULL)", "generation_id, policy_id"},
            {"release", "release_id, revision, visibility, items", "(generation_id bigint NOT NULL, release_id text "
                    + "NOT NULL, revision integer NOT NULL, visibility text NOT NULL, items jsonb NOT NULL, "
                    + "epoch bigint NOT NULL, position bigint NOT NULL)", "generation_id, release_id"}};
        long copyNanos = 0;
        long indexNanos = 0;
        try (Connection out = rdb.connect(); Connection in = pdb.connect(); Statement st = in.createStatement()) {
            st.execute("CREATE SCHEMA bench_raw");
            st.execute("SET maintenance_work_mem = '" + memory + "'");
            for (String[] t : tables) {
                st.execute("CREATE TABLE bench_raw." + t[0] + " " + t[2]);
            }
            in.setAutoCommit(false);
            for (String[] t : tables) {
                long t0 = System.nanoTime();
                pipe(out, "COPY (SELECT 1, " + t[1] + ", epoch, position FROM resolver." + t[0] + " WHERE tenant = '"
                        + T + "' AND catalog = '" + C + "') TO STDOUT WITH (FORMAT csv)", in,
                        "COPY bench_raw." + t[0] + " (generation_id, " + t[1] + ", epoch, position) FROM STDIN "
                                + "WITH (FORMAT csv)");
                long t1 = System.nanoTime();
                st.execute("ALTER TABLE bench_raw." + t[0] + " ADD PRIMARY KEY (" + t[3] + ")");
                indexNanos += System.nanoTime() - t1;
                copyNanos += t1 - t0;
            }
            in.commit();
            in.setAutoCommit(true);
            st.execute("DROP SCHEMA bench_raw CASCADE");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("copySeconds", seconds(copyNanos));
        m.put("indexSeconds", seconds(indexNanos));
        m.put("totalSeconds", seconds(copyNanos + indexNanos));
        return m;
    }

    /** Streams a COPY TO STDOUT on one connection into a COPY FROM STDIN on another. */
    private static void pipe(Connection from, String copyOut, Connection to, String copyIn) throws Exception {
        PipedInputStream read = new PipedInputStream(1 << 20);
        PipedOutputStream write = new PipedOutputStream(read);
        CompletableFuture<Long> producer = CompletableFuture.supplyAsync(() -> {
            try (write) {
                return from.unwrap(PGConnection.class).getCopyAPI().copyOut(copyOut, write);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        to.unwrap(PGConnection.class).getCopyAPI().copyIn(copyIn, read, 1 << 16);
        producer.join();
    }

    /**
     * The resolver alone: the tail's catch-up pages (after N, {@code pageLimit} each) fetched by this process under a
     * fresh lease, so the catch-up's fetch time can be split into resolver serving and product parsing/applying.
     */
    private static Map<String, Object> resolverPages(HttpClient http, ServiceProcess resolver, int items, int tail,
            int pageLimit) throws Exception {
        JsonNode lease = JSON.readTree(call(http, "POST", resolver.baseUrl() + "/v1/retention/leases", "op",
                "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\",\"epoch\":1,\"ttlSeconds\":600,"
                        + "\"owner\":\"bench\"}"));
        String leaseId = lease.path("leaseId").stringValue();
        long after = items;
        long bytes = 0;
        int pages = 0;
        long t0 = System.nanoTime();
        while (after < (long) items + tail) {
            String body = call(http, "GET", resolver.baseUrl() + "/v1/exports/events?tenant=" + T + "&catalog=" + C
                    + "&after=" + after + "&lease_id=" + leaseId + "&history_epoch=1&limit=" + pageLimit, "op", null);
            bytes += body.length();
            pages++;
            int at = body.indexOf("\"through\":");
            after = Long.parseLong(body.substring(at + 10, body.indexOf(',', at)));
        }
        long nanos = System.nanoTime() - t0;
        call(http, "DELETE", resolver.baseUrl() + "/v1/retention/leases/" + leaseId, "op", null);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pages", pages);
        m.put("bytes", bytes);
        m.put("seconds", seconds(nanos));
        m.put("eventsPerSecond", Latencies.round(tail / Math.max(nanos / 1e9, 0.001)));
        return m;
    }

    private static boolean checksumsEqual(HttpClient http, ServiceProcess resolver, ServiceProcess product,
            long head) throws Exception {
        String path = "/v1/streams/" + T + "/" + C;
        JsonNode p = JSON.readTree(call(http, "GET", product.baseUrl() + path + "/projection-checksum", "op", null));
        JsonNode r = JSON.readTree(call(http, "GET", resolver.baseUrl() + path + "/state-checksum", "op", null));
        boolean equal = p.path("position").asLong() == head && r.path("position").asLong() == head
                && p.path("tables").equals(r.path("tables"));
        if (!equal) {
            WriteScenario.progress("checksums differ: product %s resolver %s", p, r);
        }
        return equal;
    }

    private static JsonNode send(HttpClient http, String method, String url, String body) throws Exception {
        return JSON.readTree(call(http, method, url, "op", body));
    }

    private static String call(HttpClient http, String method, String url, String token, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return -1;
        }
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }
}
