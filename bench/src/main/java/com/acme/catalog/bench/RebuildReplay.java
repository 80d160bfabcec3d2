package com.acme.catalog.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * The full replay of the rebuild scenario (what Marten's and Axon's rebuilds do): a product of its own, started with
 * an empty database and {@code PRODUCT_STREAMS} naming the stream, against a resolver of its own whose outbox holds
 * the whole history (never pruned: its prune cycle and its relay are off, so nothing but the catch-up applies an
 * event). The recovery worker opens the stream as the product opens any stream still retained from position 1
 * (docs/streams.md): an empty generation at position 0, then the retained events applied through the live apply in catch-up
 * pages of the rebuild's page size, one cycle after the other, until the head. Timed from the generation's creation
 * (database clock, so the JVM's start is not counted; {@code startToServedSeconds} counts it) to the moment its
 * applied position reaches the head (polled every 100 ms).
 */
final class RebuildReplay {

    static final int PRODUCT_PORT = 18096;

    private RebuildReplay() {
    }

    /** Starts the replay product and waits until the stream is served at {@code head}. */
    static Map<String, Object> run(ServiceProcess resolver, TestDatabase pdb, Path objects, int pageLimit, long head)
            throws Exception {
        String tokens = "op=operator;w=writer;r=relay;c=consumer";
        Map<String, Object> m = new LinkedHashMap<>();
        long start = System.nanoTime();
        try (ServiceProcess product = ServiceProcess.start("product-service", PRODUCT_PORT, Map.of(
                "SPRING_DATASOURCE_URL", pdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", pdb.username(),
                "RESOLVER_URL", resolver.baseUrl(), "RESOLVER_TOKEN", "c", "OBJECT_STORE_URI", "file:" + objects,
                "PRODUCT_DELIVERY_URL", "http://localhost:" + PRODUCT_PORT + "/v1/inbox/events",
                "SECURITY_TOKENS", tokens, "PRODUCT_STREAMS", RebuildSeed.T + "/" + RebuildSeed.C,
                "SPRING_APPLICATION_JSON", "{\"product\":{\"recovery\":{\"page-limit\":" + pageLimit
                        + ",\"max-pages-per-cycle\":1000}}}"))) {
            long bootNanos = System.nanoTime() - start;
            long deadline = System.nanoTime() + Math.max(900L, head / 200) * 1_000_000_000L;
            long lastReport = System.nanoTime();
            double servedSeconds;
            long generation;
            while (true) {
                long[] applied = new long[2];
                double seconds = poll(pdb, applied);
                if (applied[0] >= head) {
                    servedSeconds = seconds;
                    generation = applied[1];
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the replay did not reach " + head + " in time: applied "
                            + applied[0] + "; see " + product.log());
                }
                if (System.nanoTime() - lastReport > 30_000_000_000L) {
                    WriteScenario.progress("replay applied %d of %d", applied[0], head);
                    lastReport = System.nanoTime();
                }
                Thread.sleep(100);
            }
            m.put("seconds", Latencies.round(servedSeconds));
            m.put("startToServedSeconds", Latencies.round((System.nanoTime() - start) / 1e9));
            m.put("productBootSeconds", Latencies.round(bootNanos / 1e9));
            m.put("events", head);
            m.put("eventsPerSecond", Latencies.round(head / Math.max(servedSeconds, 0.001)));
            m.put("generationId", generation);
            m.put("productBaseUrl", product.baseUrl());
            m.put("checksumsEqual", RebuildScenario.checksumsEqual(java.net.http.HttpClient.newHttpClient(),
                    resolver, product, head));
        }
        return m;
    }

    /**
     * @param applied gets the serving generation's applied position and id (0 while none serves)
     * @return seconds since the serving generation was created (database clock)
     */
    private static double poll(TestDatabase pdb, long[] applied) throws Exception {
        try (Connection c = pdb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT g.applied_position, g.generation_id,
                       extract(epoch FROM clock_timestamp() - g.created_at)::float8
                  FROM product.serving_generation s JOIN product.generation g ON g.generation_id = s.generation_id
                 WHERE s.tenant = ? AND s.catalog = ?
                """)) {
            ps.setString(1, RebuildSeed.T);
            ps.setString(2, RebuildSeed.C);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return 0;
                }
                applied[0] = rs.getLong(1);
                applied[1] = rs.getLong(2);
                return rs.getDouble(3);
            }
        } catch (java.sql.SQLException e) {
            return 0; // the product's migrations have not created the tables yet
        }
    }
}
