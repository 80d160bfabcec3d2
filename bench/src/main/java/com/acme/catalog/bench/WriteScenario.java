package com.acme.catalog.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * Logical writes per second and latency through the resolver's REST API on 1 and on 8 streams, against the same
 * SQL issued directly over JDBC by the same number of threads (the floor the service adds to).
 */
final class WriteScenario implements Scenario {

    @Override
    public String name() {
        return "write";
    }

    @Override
    public String description() {
        return "REST item writes on 1 and 8 streams vs the same SQL over JDBC [--threads=16 --writes=4000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int threads = o.integer("threads", 16);
        int writes = o.integer("writes", 4000);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("threads", threads);
        out.put("writesPerCase", writes);
        try (TestDatabase db = TestDatabase.create("bench_write");
             TestDatabase control = TestDatabase.create("bench_write_control");
             ServiceProcess resolver = ServiceProcess.start("resolver-service", 18081, ControlDatabase.env(control,
                     Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                             "SPRING_DATASOURCE_USERNAME", db.username(),
                             "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                             "SECURITY_TOKENS", "w=writer")))) {
            for (int streams : new int[] {1, 8}) {
                progress("rest, %d stream(s): warming up", streams);
                rest(resolver, "warm" + streams, streams, threads, Math.min(500, writes));
                progress("rest, %d stream(s): %d writes", streams, writes);
                Map<String, Object> rest = rest(resolver, "rest" + streams, streams, threads, writes);
                progress("jdbc, %d stream(s): %d writes", streams, writes);
                Map<String, Object> jdbc = jdbc(db, "jdbc" + streams, streams, threads, writes);
                out.put("rest" + streams + "Stream" + (streams > 1 ? "s" : ""), rest);
                out.put("jdbc" + streams + "Stream" + (streams > 1 ? "s" : ""), jdbc);
                out.put("ratioThroughput" + streams, Latencies.round(
                        ((Number) rest.get("perSecond")).doubleValue() / ((Number) jdbc.get("perSecond")).doubleValue()));
                out.put("ratioP99_" + streams, Latencies.round(
                        ((Number) rest.get("p99Ms")).doubleValue() / ((Number) jdbc.get("p99Ms")).doubleValue()));
            }
        }
        return out;
    }

    private Map<String, Object> rest(ServiceProcess resolver, String prefix, int streams, int threads, int writes)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(4)).build();
        Latencies lat = new Latencies();
        long wall = parallel(threads, writes, (thread, i) -> {
            putItem(http, resolver.baseUrl(), "bench", prefix + "-" + (i % streams), "sku-" + thread + "-" + (i % 50),
                    i, lat);
        });
        return lat.summary(wall);
    }

    /** PUTs one item with the writer token {@code w}, timing it; anything but 200 fails the run. */
    static void putItem(HttpClient http, String baseUrl, String tenant, String catalog, String itemId, int i,
            Latencies lat) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/streams/" + tenant + "/" + catalog
                        + "/items/" + itemId))
                .header("Authorization", "Bearer w").header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"attributes\":{\"name\":\"item " + i + "\",\"price\":" + i
                        + "}}"))
                .build();
        long t0 = System.nanoTime();
        HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
        lat.add(System.nanoTime() - t0);
        if (res.statusCode() != 200) {
            throw new IllegalStateException("write answered " + res.statusCode() + ": " + res.body());
        }
    }

    /** The write path's statements, issued directly: lock, read, upsert, revision, outbox, advance, commit. */
    private Map<String, Object> jdbc(TestDatabase db, String prefix, int streams, int threads, int writes)
            throws Exception {
        Latencies lat = new Latencies();
        ThreadLocal<Connection> conn = ThreadLocal.withInitial(() -> {
            try {
                Connection c = db.connect();
                c.createStatement().execute("SET search_path = resolver"); // before autocommit off: survives rollbacks
                c.setAutoCommit(false);
                return c;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        long wall = parallel(threads, writes, (thread, i) -> {
            String catalog = prefix + "-" + (i % streams);
            String itemId = "sku-" + thread + "-" + (i % 50);
            long t0 = System.nanoTime();
            writeDirect(conn.get(), catalog, itemId, i);
            lat.add(System.nanoTime() - t0);
        });
        return lat.summary(wall);
    }

    private static void writeDirect(Connection c, String catalog, String itemId, int i) throws SQLException {
        try {
            long epoch;
            long position;
            String digest;
            try (PreparedStatement ps = c.prepareStatement("SELECT epoch, position, chain_digest FROM stream_cursor "
                    + "WHERE tenant = 'bench' AND catalog = ? AND fenced_at IS NULL FOR UPDATE")) {
                ps.setString(1, catalog);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        c.rollback();
                        try (PreparedStatement ins = c.prepareStatement("INSERT INTO stream_cursor (tenant, catalog, "
                                + "epoch) VALUES ('bench', ?, 1) ON CONFLICT DO NOTHING")) {
                            ins.setString(1, catalog);
                            ins.executeUpdate();
                        }
                        c.commit();
                        writeDirect(c, catalog, itemId, i);
                        return;
                    }
                    epoch = rs.getLong(1);
                    position = rs.getLong(2);
                    digest = rs.getString(3);
                }
            }
            int revision = 1;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT revision, deleted FROM item WHERE tenant = 'bench' AND catalog = ? AND item_id = ?")) {
                ps.setString(1, catalog);
                ps.setString(2, itemId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        revision = rs.getInt(1) + 1;
                    }
                }
            }
            long p = position + 1;
            String attributes = "{\"name\":\"item " + i + "\",\"price\":" + i + "}";
            UUID eventId = UuidV7.next();
            UUID txId = UuidV7.next();
            Instant now = Instant.now();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO item (tenant, catalog, item_id, revision, "
                    + "attributes, deleted, epoch, position) VALUES ('bench', ?, ?, ?, ?::jsonb, false, ?, ?) "
                    + "ON CONFLICT (tenant, catalog, item_id) DO UPDATE SET revision = excluded.revision, "
                    + "attributes = excluded.attributes, deleted = false, epoch = excluded.epoch, "
                    + "position = excluded.position, updated_at = now()")) {
                ps.setString(1, catalog);
                ps.setString(2, itemId);
                ps.setInt(3, revision);
                ps.setString(4, attributes);
                ps.setLong(5, epoch);
                ps.setLong(6, p);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO accepted_revision (tenant, catalog, "
                    + "aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id) "
                    + "VALUES ('bench', ?, 'item', ?, ?, ?::jsonb, false, ?, ?, ?)")) {
                ps.setString(1, catalog);
                ps.setString(2, itemId);
                ps.setInt(3, revision);
                ps.setString(4, "{\"attributes\":" + attributes + "}");
                ps.setLong(5, epoch);
                ps.setLong(6, p);
                ps.setObject(7, eventId);
                ps.executeUpdate();
            }
            String wire = "{\"tenant\":\"bench\",\"catalog\":\"" + catalog + "\",\"epoch\":" + epoch + ",\"position\":"
                    + p + ",\"eventId\":\"" + eventId + "\",\"type\":\"ItemUpserted\",\"payload\":{\"attributes\":"
                    + attributes + "}}";
            String next = ChainDigest.next(digest, wire);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (tenant, catalog, epoch, position, "
                    + "event_id, transaction_id, transaction_ordinal, transaction_count, event_type, aggregate_type, "
                    + "aggregate_id, revision, wire, chain_digest, occurred_at) "
                    + "VALUES ('bench', ?, ?, ?, ?, ?, 0, 1, 'ItemUpserted', 'item', ?, ?, ?, ?, ?)")) {
                ps.setString(1, catalog);
                ps.setLong(2, epoch);
                ps.setLong(3, p);
                ps.setObject(4, eventId);
                ps.setObject(5, txId);
                ps.setString(6, itemId);
                ps.setInt(7, revision);
                ps.setString(8, wire);
                ps.setString(9, next);
                ps.setTimestamp(10, Timestamp.from(now));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE stream_cursor SET position = ?, chain_digest = ?, "
                    + "updated_at = now() WHERE tenant = 'bench' AND catalog = ? AND epoch = ? AND position = ?")) {
                ps.setLong(1, p);
                ps.setString(2, next);
                ps.setString(3, catalog);
                ps.setLong(4, epoch);
                ps.setLong(5, position);
                if (ps.executeUpdate() != 1) {
                    throw new IllegalStateException("cursor moved under the lock");
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
    }

    /** Runs {@code total} operations over {@code threads} threads; returns wall-clock nanos. */
    static long parallel(int threads, int total, Op op) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                for (int i = thread; i < total; i += threads) {
                    op.run(thread, i);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        long wall = System.nanoTime() - t0;
        pool.shutdown();
        return wall;
    }

    static void progress(String format, Object... args) {
        System.err.printf("[bench] " + format + "%n", args);
    }

    /** One operation of a parallel run. */
    interface Op {
        void run(int thread, int index) throws Exception;
    }
}
