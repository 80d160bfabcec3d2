package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The restore scenario's verification reads, none of them an operator call: checksums of both services, public
 * reads of many streams, the resolver's rolled-back streams, and the product's rebuilds (the only reads of a
 * service's tables: the product has no endpoint listing rebuilds).
 */
final class RestoreChecks {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");

    private final HttpClient http;
    private final String resolver;
    private final String product;
    private final ExecutorService readers;

    RestoreChecks(HttpClient http, String resolverUrl, String productUrl, ExecutorService readers) {
        this.http = http;
        this.resolver = resolverUrl;
        this.product = productUrl;
        this.readers = readers;
    }

    /**
     * Resolver {@code state-checksum} against product {@code projection-checksum} ({@code epoch}, {@code position},
     * {@code tables}) under both profiles, each at {@code epoch}; a stream that differs is compared again every 2 s
     * for 30 s (the product may still be applying when it turned CURRENT).
     */
    Map<String, Object> checksums(List<String> streams, long epoch) throws Exception {
        Map<String, String> differing = compare(streams, epoch);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!differing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(2000);
            differing = compare(new ArrayList<>(differing.keySet()), epoch);
        }
        long failedReads = differing.values().stream().filter(v -> v.startsWith("HTTP")).count();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("streams", streams.size());
        m.put("profiles", PROFILES);
        m.put("equal", streams.size() - differing.size());
        m.put("unequal", (int) (differing.size() - failedReads));
        m.put("failedReads", (int) failedReads);
        m.put("examples", differing.entrySet().stream().limit(5).map(e -> e.getKey() + ": " + e.getValue())
                .toList());
        return m;
    }

    /** The streams whose checksums differ (or could not be read), with what differed. */
    private Map<String, String> compare(List<String> streams, long epoch) throws Exception {
        List<Callable<String>> reads = new ArrayList<>();
        for (String path : streams) {
            reads.add(() -> difference(path, epoch));
        }
        Map<String, String> differing = new LinkedHashMap<>();
        List<Future<String>> answers = readers.invokeAll(reads);
        for (int i = 0; i < answers.size(); i++) {
            if (answers.get(i).get() != null) {
                differing.put(streams.get(i), answers.get(i).get());
            }
        }
        return differing;
    }

    /** What differs between the two services' checksums of one stream, or null when both profiles are equal. */
    private String difference(String path, long epoch) throws Exception {
        for (String profile : PROFILES) {
            HttpResponse<String> a = Pipeline.call(http, "GET", resolver + "/v1/streams/" + path
                    + "/state-checksum?profile=" + profile, "op", null);
            HttpResponse<String> b = Pipeline.call(http, "GET", product + "/v1/streams/" + path
                    + "/projection-checksum?profile=" + profile, "op", null);
            if (a.statusCode() != 200 || b.statusCode() != 200) {
                return "HTTP " + a.statusCode() + " / " + b.statusCode() + " (" + profile + ")";
            }
            JsonNode x = JSON.readTree(a.body());
            JsonNode y = JSON.readTree(b.body());
            if (x.path("epoch").asLong() != epoch || !x.path("epoch").equals(y.path("epoch"))
                    || !x.path("position").equals(y.path("position")) || !x.path("tables").equals(y.path("tables"))) {
                return profile + ": resolver " + a.body() + " product " + b.body();
            }
        }
        return null;
    }

    /** How many of {@code streams} answer 200 for {@code item} (naming {@code releaseId}, unless null). */
    long served(List<String> streams, String item, String releaseId) throws Exception {
        AtomicLong served = new AtomicLong();
        List<Callable<Void>> reads = new ArrayList<>();
        for (String path : streams) {
            reads.add(() -> {
                HttpResponse<String> res = Pipeline.call(http, "GET", product + "/v1/catalog/" + path + "/items/"
                        + item, null, null);
                if (res.statusCode() == 200
                        && (releaseId == null || res.body().contains("\"releaseId\":\"" + releaseId + "\""))) {
                    served.incrementAndGet();
                }
                return null;
            });
        }
        for (Future<Void> f : readers.invokeAll(reads)) {
            f.get();
        }
        return served.get();
    }

    /** The resolver's streams listed as rolled back ({@code GET /v1/streams?rolledBack=true}, every page). */
    long rolledBack() throws Exception {
        long n = 0;
        String after = null;
        do {
            JsonNode page = JSON.readTree(Pipeline.send(http, "GET", resolver + "/v1/streams?rolledBack=true"
                    + "&limit=5000" + (after == null ? "" : "&after=" + after), "op", null));
            n += page.path("streams").size();
            after = page.path("next").isString() ? page.path("next").asString() : null;
        } while (after != null);
        return n;
    }

    /** The product's {@code product_rebuilds_finished_total} summed over its outcomes (Prometheus scrape). */
    double rebuildsFinished() throws Exception {
        String text = Pipeline.send(http, "GET", product + "/actuator/prometheus", null, null);
        return text.lines().filter(l -> l.startsWith("product_rebuilds_finished_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /**
     * The product's rebuilds started since {@code since} (rows of {@code product.rebuild}), by their phase now,
     * how many started before {@code maintenanceOff}, and how many are of {@code affected} streams.
     */
    static Map<String, Object> rebuilds(TestDatabase productDb, Timestamp since, Timestamp maintenanceOff,
            Set<String> affected) throws Exception {
        long run = 0;
        long beforeOff = 0;
        long ofAffected = 0;
        Map<String, Long> byPhase = new TreeMap<>();
        Set<String> streams = new HashSet<>();
        try (Connection c = productDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT tenant || '/' || catalog, phase, created_at < ? FROM product.rebuild
                 WHERE created_at >= ?""")) {
            ps.setTimestamp(1, maintenanceOff);
            ps.setTimestamp(2, since);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    run++;
                    streams.add(rs.getString(1));
                    byPhase.merge(rs.getString(2), 1L, Long::sum);
                    beforeOff += rs.getBoolean(3) ? 1 : 0;
                    ofAffected += affected.contains(rs.getString(1)) ? 1 : 0;
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", run);
        m.put("byPhase", byPhase);
        m.put("streams", streams.size());
        m.put("ofAffectedStreams", ofAffected);
        m.put("ofUnaffectedStreams", run - ofAffected);
        m.put("beforeMaintenanceOff", beforeOff);
        return m;
    }
}
