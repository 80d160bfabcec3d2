package com.acme.catalog.bench;

import com.acme.catalog.testsupport.ServiceProcess;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import com.acme.catalog.testsupport.TestDatabase;

import org.postgresql.PGConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A snapshot export of N items through the resolver jar's REST API (lease, {@code POST /v1/exports}, poll until
 * READY) against the floor it adds to: the same {@code COPY (SELECT …) TO STDOUT} of the same rows, gzip-compressed
 * at the same level into a file on local disk, in the same run. Rows are seeded with SQL (generate_series).
 */
final class ExportScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    public String name() {
        return "export";
    }

    @Override
    public String description() {
        return "export of N items via REST vs raw COPY to a gzip file [--items=1000000 --rounds=3 --level=6]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int items = o.integer("items", 1_000_000);
        int rounds = o.integer("rounds", 3);
        int level = o.integer("level", 6);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("rounds", rounds);
        out.put("gzipLevel", level);
        Path objects = Files.createTempDirectory("bench-export-objects-");
        Path rawDir = Files.createTempDirectory("bench-export-raw-");
        try (TestDatabase db = TestDatabase.create("bench_export");
             TestDatabase control = TestDatabase.create("bench_export_control");
             ServiceProcess resolver = ServiceProcess.start("resolver-service", 18082, ControlDatabase.env(control,
                     Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                             "SPRING_DATASOURCE_USERNAME", db.username(),
                             "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                             "OBJECT_STORE_URI", "file:" + objects,
                             "EXPORT_COMPRESSION_LEVEL", Integer.toString(level),
                             "EXPORT_KEEP", "1",
                             "SECURITY_TOKENS", "op=operator")))) {
            WriteScenario.progress("seeding %d items with SQL", items);
            long t0 = System.nanoTime();
            seed(db, items);
            out.put("seedSeconds", seconds(System.nanoTime() - t0));
            HttpClient http = HttpClient.newHttpClient();
            String leaseId = lease(http, resolver);

            List<Double> exportSeconds = new ArrayList<>();
            List<Double> rawSeconds = new ArrayList<>();
            long exportBytes = 0;
            long rawBytes = 0;
            for (int round = 0; round <= rounds; round++) {
                String label = round == 0 ? "warm-up" : "round " + round;
                WriteScenario.progress("%s: raw COPY to gzip file", label);
                Path file = rawDir.resolve("items-" + round + ".csv.gz");
                long r0 = System.nanoTime();
                rawCopy(db, file, level);
                long raw = System.nanoTime() - r0;
                rawBytes = Files.size(file);
                Files.delete(file);
                WriteScenario.progress("%s: raw %.2f s; export through REST", label, seconds(raw));
                long e0 = System.nanoTime();
                JsonNode done = export(http, resolver, leaseId);
                long export = System.nanoTime() - e0;
                exportBytes = done.path("progress").path("bytesWritten").asLong();
                WriteScenario.progress("%s: export %.2f s (%s)", label, seconds(export), done.path("status"));
                if (round > 0) {
                    rawSeconds.add(seconds(raw));
                    exportSeconds.add(seconds(export));
                }
            }
            double rawMedian = median(rawSeconds);
            double exportMedian = median(exportSeconds);
            out.put("rawCopyGzipSeconds", rawSeconds);
            out.put("exportSeconds", exportSeconds);
            out.put("rawCopyGzipMedianSeconds", rawMedian);
            out.put("exportMedianSeconds", exportMedian);
            out.put("rawGzipBytes", rawBytes);
            out.put("exportBytes", exportBytes);
            out.put("ratioExportToRaw", Latencies.round(exportMedian / rawMedian));
        } finally {
            deleteTree(objects);
            deleteTree(rawDir);
        }
        return out;
    }

    private static void seed(TestDatabase db, int items) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("SET search_path = resolver");
            st.execute("INSERT INTO stream_cursor (tenant, catalog, epoch, position, chain_digest) "
                    + "VALUES ('bench', 'big', 1, " + items + ", repeat('a', 64))");
            st.execute("""
                    INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                    SELECT 'bench', 'big', 'sku-' || g, 1 + g %% 5,
                           jsonb_build_object('name', 'Trail runner ' || g, 'price', g %% 1000,
                                              'colour', 'blue, "navy"', 'tags', jsonb_build_array('run', 'trail')),
                           false, 1, g
                      FROM generate_series(1, %d) g
                    """.formatted(items));
            st.execute("VACUUM ANALYZE item");
        }
    }

    /** The baseline: the export's own SELECT, COPY'd out and gzip-compressed at the same level to a local file. */
    private static void rawCopy(TestDatabase db, Path file, int level) throws Exception {
        try (Connection c = db.connect();
             OutputStream gz = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16),
                     1 << 16) {
                 {
                     def.setLevel(level);
                 }
             }) {
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("""
                    COPY (SELECT item_id, revision, deleted, attributes FROM resolver.item
                           WHERE tenant = 'bench' AND catalog = 'big' ORDER BY item_id COLLATE "C")
                      TO STDOUT WITH (FORMAT csv, HEADER true)
                    """, gz);
        }
    }

    private static String lease(HttpClient http, ServiceProcess resolver) throws Exception {
        HttpResponse<String> res = http.send(request(resolver, "/v1/retention/leases")
                .POST(HttpRequest.BodyPublishers.ofString("{\"tenant\":\"bench\",\"catalog\":\"big\",\"epoch\":1,"
                        + "\"ttlSeconds\":3600,\"owner\":\"bench\"}")).build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 201) {
            throw new IllegalStateException("lease answered " + res.statusCode() + ": " + res.body());
        }
        return JSON.readTree(res.body()).path("leaseId").stringValue();
    }

    private static JsonNode export(HttpClient http, ServiceProcess resolver, String leaseId) throws Exception {
        HttpResponse<String> res = http.send(request(resolver, "/v1/exports")
                .POST(HttpRequest.BodyPublishers.ofString("{\"tenant\":\"bench\",\"catalog\":\"big\",\"leaseId\":\""
                        + leaseId + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 202) {
            throw new IllegalStateException("export answered " + res.statusCode() + ": " + res.body());
        }
        String id = JSON.readTree(res.body()).path("exportId").stringValue();
        while (true) {
            Thread.sleep(50);
            HttpResponse<String> st = http.send(request(resolver, "/v1/exports/" + id).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = JSON.readTree(st.body());
            String status = body.path("status").stringValue();
            if ("READY".equals(status)) {
                return body;
            }
            if (!"RUNNING".equals(status)) {
                throw new IllegalStateException("export ended " + status + ": " + st.body());
            }
        }
    }

    private static HttpRequest.Builder request(ServiceProcess resolver, String path) {
        return HttpRequest.newBuilder(URI.create(resolver.baseUrl() + path)).header("Authorization", "Bearer op")
                .header("Content-Type", "application/json");
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }

    static void deleteTree(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
