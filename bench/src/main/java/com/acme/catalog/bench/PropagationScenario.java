package com.acme.catalog.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Propagation latency: resolver commit (the write's HTTP answer) to "applied in the product" (the product's
 * serving generation's contiguous position covers the write), at a paced event rate, through the real relay
 * (LISTEN/NOTIFY wake, HTTP push, one product transaction per batch). Baseline in the same run: a bare PostgreSQL
 * NOTIFY from one connection to a LISTENing one, the floor of any wake-on-commit pipeline.
 */
final class PropagationScenario implements Scenario {

    @Override
    public String name() {
        return "propagation";
    }

    @Override
    public String description() {
        return "commit -> applied in the product at a paced rate [--rate=1000 --seconds=20 --streams=4 --batch=5]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int rate = o.integer("rate", 1000);
        int seconds = o.integer("seconds", 20);
        int streams = o.integer("streams", 4);
        int batch = o.integer("batch", 5);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("targetEventsPerSecond", rate);
        out.put("streams", streams);
        out.put("changesPerTransaction", batch);
        try (TestDatabase rdb = TestDatabase.create("bench_prop_resolver");
             TestDatabase pdb = TestDatabase.create("bench_prop_product")) {
            out.put("notifyBaseline", notifyBaseline(rdb));
            String tokens = "op=operator;w=writer;r=relay;c=consumer";
            try (ServiceProcess resolver = ServiceProcess.start("resolver-service", 18091, Map.of(
                    "SPRING_DATASOURCE_URL", rdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", rdb.username(),
                    "RELAY_TOKEN", "r", "SECURITY_TOKENS", tokens));
                 ServiceProcess product = ServiceProcess.start("product-service", 18092, Map.of(
                         "SPRING_DATASOURCE_URL", pdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", pdb.username(),
                         "RESOLVER_URL", resolver.baseUrl(), "RESOLVER_TOKEN", "c",
                         "PRODUCT_DELIVERY_URL", "http://localhost:18092/v1/inbox/events",
                         "SECURITY_TOKENS", tokens))) {
                HttpClient http = HttpClient.newHttpClient();
                for (int s = 0; s < streams; s++) {
                    send(http, "PUT", resolver.baseUrl() + "/v1/streams/bench/prop-" + s + "/items/warm", "w",
                            "{\"attributes\":{}}");
                    send(http, "POST", resolver.baseUrl() + "/v1/retention/consumers", "c",
                            "{\"consumerId\":\"product-1\",\"tenant\":\"bench\",\"catalog\":\"prop-" + s
                                    + "\",\"epoch\":1,\"deliveryUrl\":\"" + product.baseUrl() + "/v1/inbox/events\"}");
                }
                WriteScenario.progress("propagation: %d events/s for %d s on %d streams", rate, seconds, streams);
                out.putAll(measure(http, resolver, pdb, rate, seconds, streams, batch));
                double p99 = ((Number) ((Map<?, ?>) out.get("propagation")).get("p99Ms")).doubleValue();
                double floor = ((Number) ((Map<?, ?>) out.get("notifyBaseline")).get("p99Ms")).doubleValue();
                out.put("ratioP99ToNotifyP99", Latencies.round(p99 / Math.max(floor, 0.01)));
            }
        }
        return out;
    }

    private Map<String, Object> measure(HttpClient http, ServiceProcess resolver, TestDatabase pdb, int rate,
            int seconds, int streams, int batch) throws Exception {
        Map<String, Long> committedAt = new ConcurrentHashMap<>(); // "stream:position" -> nanos
        Latencies lat = new Latencies();
        AtomicBoolean observing = new AtomicBoolean(true);
        Thread observer = new Thread(() -> observe(pdb, committedAt, lat, observing));
        observer.start();
        ExecutorService writers = Executors.newFixedThreadPool(streams * 2);
        long transactionsPerSecond = Math.max(1, rate / batch);
        long intervalNanos = 1_000_000_000L / transactionsPerSecond;
        long start = System.nanoTime();
        long total = transactionsPerSecond * seconds;
        StringBuilder changes = new StringBuilder("{\"changes\":[");
        for (int i = 0; i < batch; i++) {
            changes.append(i == 0 ? "" : ",").append("{\"op\":\"upsertItem\",\"itemId\":\"sku-").append(i)
                    .append("\",\"attributes\":{\"n\":").append(i).append("}}");
        }
        String body = changes.append("]}").toString();
        for (long n = 0; n < total; n++) {
            long due = start + n * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            int s = (int) (n % streams);
            writers.execute(() -> {
                try {
                    String res = send(http, "POST", resolver.baseUrl() + "/v1/streams/bench/prop-" + s
                            + "/transactions", "w", body);
                    long now = System.nanoTime();
                    int at = res.indexOf("\"lastPosition\":");
                    long last = Long.parseLong(res.substring(at + 15, res.indexOf(',', at)));
                    committedAt.put(s + ":" + last, now);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        writers.shutdown();
        writers.awaitTermination(5, TimeUnit.MINUTES);
        long wall = System.nanoTime() - start;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!committedAt.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        observing.set(false);
        observer.join();
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> summary = lat.summary(wall);
        m.put("achievedEventsPerSecond", Latencies.round(total * batch / (wall / 1e9)));
        m.put("propagation", summary);
        m.put("unobserved", committedAt.size());
        return m;
    }

    /** Polls each stream's applied position; a write counts as applied when the position covers it. */
    private static void observe(TestDatabase pdb, Map<String, Long> committedAt, Latencies lat,
            AtomicBoolean observing) {
        try (Connection c = pdb.connect();
             PreparedStatement ps = c.prepareStatement("""
                     SELECT s.catalog, g.applied_position FROM product.serving_generation s
                       JOIN product.generation g ON g.generation_id = s.generation_id WHERE s.tenant = 'bench'
                     """)) {
            while (observing.get()) {
                long now = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String stream = rs.getString(1).substring("prop-".length());
                        long applied = rs.getLong(2);
                        for (var it = committedAt.entrySet().iterator(); it.hasNext(); ) {
                            var e = it.next();
                            int colon = e.getKey().indexOf(':');
                            if (e.getKey().substring(0, colon).equals(stream)
                                    && Long.parseLong(e.getKey().substring(colon + 1)) <= applied) {
                                lat.add(Math.max(0, now - e.getValue()));
                                it.remove();
                            }
                        }
                    }
                }
                Thread.sleep(2); // 2 ms resolution; a tighter poll would take a core from the services
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** NOTIFY from one connection to a LISTENing other: the floor of a wake-on-commit pipeline. */
    private static Map<String, Object> notifyBaseline(TestDatabase db) throws Exception {
        Latencies lat = new Latencies();
        try (Connection listen = db.connect(); Connection notify = db.connect()) {
            try (Statement s = listen.createStatement()) {
                s.execute("LISTEN bench");
            }
            PGConnection pg = listen.unwrap(PGConnection.class);
            long t0 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                long sent = System.nanoTime();
                try (Statement s = notify.createStatement()) {
                    s.execute("NOTIFY bench");
                }
                PGNotification[] n;
                do {
                    n = pg.getNotifications(1000);
                } while (n == null || n.length == 0);
                lat.add(System.nanoTime() - sent);
            }
            return lat.summary(System.nanoTime() - t0);
        }
    }

    private static String send(HttpClient http, String method, String url, String token, String body)
            throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }
}
