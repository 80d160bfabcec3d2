package com.acme.catalog.bench;

import com.acme.catalog.testsupport.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import com.acme.catalog.testsupport.TestDatabase;

/**
 * Writer latency on a stream while the pruner deletes a large published backlog of that same stream, against the
 * same writers with no pruning in the same run. The backlog is seeded with SQL ({@code generate_series}) into the
 * resolver's fresh database (its rows are well-formed but the seeded chain digests are placeholders: nothing here
 * reads them); the pruner runs through {@code POST /v1/retention/prune} with the service's default batch size.
 */
final class PruneScenario implements Scenario {

    private static final String TENANT = "bench";
    private static final String CATALOG = "prune";

    @Override
    public String name() {
        return "prune";
    }

    @Override
    public String description() {
        return "writer p99 while pruning a seeded backlog vs no pruning "
                + "[--backlog=200000 --threads=8 --baseline-seconds=20 --batch-size=1000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int backlog = o.integer("backlog", 200_000);
        int threads = o.integer("threads", 8);
        int baselineSeconds = o.integer("baseline-seconds", 20);
        int batchSize = o.integer("batch-size", 1000);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("backlog", backlog);
        out.put("threads", threads);
        out.put("batchSize", batchSize);
        try (TestDatabase db = TestDatabase.create("bench_prune");
             TestDatabase control = TestDatabase.create("bench_prune_control");
             ServiceProcess resolver = ServiceProcess.start("resolver-service", 18083, ControlDatabase.env(control,
                     Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                             "SPRING_DATASOURCE_USERNAME", db.username(),
                             "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                             "SECURITY_TOKENS", "w=writer;op=operator",
                             "RETENTION_PRUNE_ENABLED", "false",
                             "RETENTION_PRUNE_BATCHSIZE", Integer.toString(batchSize),
                             "RETENTION_PRUNE_MAXBATCHESPERSTREAM", "100000")))) {
            WriteScenario.progress("seeding %d published events older than the retention age", backlog);
            long seedStart = System.nanoTime();
            seed(db, backlog);
            out.put("seedSeconds", Latencies.round((System.nanoTime() - seedStart) / 1e9));
            ExecutorService httpThreads = Executors.newFixedThreadPool(4, r -> {
                Thread t = new Thread(r, "bench-http");
                t.setDaemon(true); // never keeps the JVM alive after the result line
                return t;
            });
            HttpClient http = HttpClient.newBuilder().executor(httpThreads).build();

            WriteScenario.progress("warming up writers");
            long warmEnd = System.nanoTime() + 5_000_000_000L;
            writers(http, resolver, threads, () -> System.nanoTime() < warmEnd);

            WriteScenario.progress("baseline: writers for %d s, no pruning", baselineSeconds);
            long baselineEnd = System.nanoTime() + baselineSeconds * 1_000_000_000L;
            Map<String, Object> baseline = writers(http, resolver, threads, () -> System.nanoTime() < baselineEnd);

            WriteScenario.progress("pruning %d events while the same writers run", backlog);
            AtomicBoolean pruning = new AtomicBoolean(true);
            long pruneStart = System.nanoTime();
            CompletableFuture<String> prune = CompletableFuture.supplyAsync(() -> {
                try {
                    return post(http, resolver, "/v1/retention/prune", "op",
                            "{\"tenant\":\"" + TENANT + "\",\"catalog\":\"" + CATALOG + "\"}");
                } finally {
                    pruning.set(false);
                }
            });
            Map<String, Object> during = writers(http, resolver, threads, pruning::get);
            String pruneAnswer = prune.get();
            double pruneSeconds = (System.nanoTime() - pruneStart) / 1e9;
            long pruned = Long.parseLong(pruneAnswer.replaceAll(".*\"pruned\":(\\d+).*", "$1"));
            if (pruned < backlog) {
                throw new IllegalStateException("pruned only " + pruned + " of " + backlog + ": " + pruneAnswer);
            }
            out.put("baselineNoPruning", baseline);
            out.put("duringPruning", during);
            out.put("pruned", pruned);
            out.put("pruneSeconds", Latencies.round(pruneSeconds));
            out.put("prunedPerSecond", Latencies.round(pruned / pruneSeconds));
            out.put("ratioP99", Latencies.round(((Number) during.get("p99Ms")).doubleValue()
                    / ((Number) baseline.get("p99Ms")).doubleValue()));
            out.put("ratioThroughput", Latencies.round(((Number) during.get("perSecond")).doubleValue()
                    / ((Number) baseline.get("perSecond")).doubleValue()));
            httpThreads.shutdown();
        }
        return out;
    }

    /** Runs an insert whose parameters are the bench stream's tenant, catalog and a position. */
    private static void insertAtPosition(Connection c, String sql, long position) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, TENANT);
            ps.setString(2, CATALOG);
            ps.setLong(3, position);
            ps.executeUpdate();
        }
    }

    /** A cursor at {@code n} and n published outbox rows, published two hours ago (past the 1 h default age). */
    private static void seed(TestDatabase db, int n) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("SET search_path = resolver");
            insertAtPosition(c, "INSERT INTO stream_cursor (tenant, catalog, epoch, position, chain_digest) "
                    + "VALUES (?, ?, 1, ?, encode(sha256('seed'::bytea), 'hex'))", n);
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id,
                                        transaction_ordinal, transaction_count, event_type, aggregate_type,
                                        aggregate_id, revision, wire, chain_digest, occurred_at)
                    SELECT ?, ?, 1, g, e, t, 0, 1, 'ItemUpserted', 'item', 'seed-' || (g % 5000), g / 5000 + 1,
                           format('{"tenant":"%s","catalog":"%s","epoch":1,"position":%s,"eventId":"%s",'
                                  '"transactionId":"%s","transactionOrdinal":0,"transactionCount":1,'
                                  '"type":"ItemUpserted","aggregateType":"item","aggregateId":"seed-%s",'
                                  '"revision":%s,"dependsOn":[],"occurredAt":"2026-01-01T00:00:00Z",'
                                  '"payload":{"attributes":{"name":"seeded item %s","price":%s}}}',
                                  ?, ?, g, e, t, g % 5000, g / 5000 + 1, g, g % 997),
                           encode(sha256(convert_to(g::text, 'UTF8')), 'hex'),
                           now() - interval '3 hours'
                      FROM (SELECT g, gen_random_uuid() AS e, gen_random_uuid() AS t
                              FROM generate_series(1, ?) g) s
                    """)) {
                ps.setString(1, TENANT);
                ps.setString(2, CATALOG);
                ps.setString(3, TENANT);
                ps.setString(4, CATALOG);
                ps.setInt(5, n);
                ps.executeUpdate();
            }
            // one publish batch covering all n rows, two hours ago
            insertAtPosition(c, "INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at) "
                    + "VALUES (?, ?, 1, ?, now() - interval '2 hours')", n);
            st.execute("VACUUM ANALYZE outbox");
        }
    }

    /** Item writes on the pruned stream from {@code threads} threads while {@code go} holds. */
    private static Map<String, Object> writers(HttpClient http, ServiceProcess resolver, int threads,
            BooleanSupplier go) throws Exception {
        Latencies lat = new Latencies();
        AtomicInteger counter = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                while (go.getAsBoolean()) {
                    int i = counter.incrementAndGet();
                    WriteScenario.putItem(http, resolver.baseUrl(), TENANT, CATALOG, "sku-" + thread + "-" + (i % 50), i,
                            lat);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        long wall = System.nanoTime() - t0;
        pool.shutdown();
        return lat.summary(wall);
    }

    private static String post(HttpClient http, ServiceProcess resolver, String path, String token, String body) {
        try {
            HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(resolver.baseUrl() + path))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 200) {
                throw new IllegalStateException(path + " answered " + res.statusCode() + ": " + res.body());
            }
            return res.body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
