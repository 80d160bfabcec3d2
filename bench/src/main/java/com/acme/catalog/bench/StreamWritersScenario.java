package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * One stream, many concurrent REST writers: logical writes per second of the resolver with write
 * coalescing on and off, against the floor's app a (one insert and a NOTIFY per write, no cursor) on the same
 * client in the same run. A serialized stream should cost almost nothing once concurrent writes share a commit.
 */
final class StreamWritersScenario implements Scenario {

    @Override
    public String name() {
        return "stream-writers";
    }

    @Override
    public String description() {
        return "one stream, concurrent PUT item writers: floor app a vs resolver coalescing on / off"
                + " [--writers=64 --writes=8000 --warmup-writes=4000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int writers = o.integer("writers", 64);
        int writes = o.integer("writes", 8000);
        int warmup = o.integer("warmup-writes", 4000);
        System.setProperty("http.maxConnections", Integer.toString(Math.max(5, writers)));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("writers", writers);
        out.put("writesPerCase", writes);
        out.put("warmupWrites", warmup);
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Map<String, Object> floor;
        try (TestDatabase db = TestDatabase.create("bench_sw_floor");
             ServiceProcess a = ServiceProcess.start("bench-floor", 18093, Map.of("FLOOR_ROLE", "a",
                     "FLOOR_RELAY_ENABLED", "false", "SPRING_DATASOURCE_URL", db.jdbcUrl(),
                     "SPRING_DATASOURCE_USERNAME", db.username(), "SECURITY_TOKENS", Pipeline.TOKENS))) {
            floor = measure("floor app a", i -> a.baseUrl() + "/items/one/sku-" + i % 500, writers, writes, warmup);
        }
        out.put("floorA", floor);
        for (boolean coalescing : new boolean[] {true, false}) {
            try (TestDatabase db = TestDatabase.create("bench_sw_resolver");
                 TestDatabase control = TestDatabase.create("bench_sw_control");
                 ServiceProcess r = ServiceProcess.start("resolver-service", 18091, ControlDatabase.env(control,
                         Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", db.username(),
                                 "RESOLVER_WRITE_COALESCING_ENABLED", Boolean.toString(coalescing),
                                 "SECURITY_TOKENS", Pipeline.TOKENS)))) {
                Map<String, Object> m = measure("resolver, coalescing " + (coalescing ? "on" : "off"),
                        i -> r.baseUrl() + "/v1/streams/bench/one/items/sku-" + i % 500, writers, writes, warmup);
                out.put(coalescing ? "resolverCoalescingOn" : "resolverCoalescingOff", m);
            }
        }
        double floorRate = rate(floor);
        double on = rate((Map<?, ?>) out.get("resolverCoalescingOn"));
        double off = rate((Map<?, ?>) out.get("resolverCoalescingOff"));
        out.put("ratioCoalescingOnToFloorA", Latencies.round(on / floorRate));
        out.put("ratioCoalescingOnToOff", Latencies.round(on / off));
        out.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        return out;
    }

    private static double rate(Map<?, ?> m) {
        return ((Number) m.get("perSecond")).doubleValue();
    }

    /** An item URL for write number i. */
    private interface Url {
        String of(int i);
    }

    private static Map<String, Object> measure(String label, Url url, int writers, int writes, int warmup)
            throws Exception {
        WriteScenario.progress("stream-writers, %s: %d warm-up writes, then %d by %d writers", label, warmup, writes,
                writers);
        AtomicLong failed = new AtomicLong();
        WriteScenario.parallel(writers, warmup, (t, i) -> put(url.of(i), i, null, failed));
        Latencies lat = new Latencies();
        long wall = WriteScenario.parallel(writers, writes, (t, i) -> put(url.of(i), i, lat, failed));
        Map<String, Object> m = new LinkedHashMap<>(lat.summary(wall));
        m.put("failedWrites", failed.get());
        return m;
    }

    private static void put(String url, int i, Latencies lat, AtomicLong failed) {
        long t0 = System.nanoTime();
        try {
            PropagationScenario.sendKeepAlive("PUT", url, "{\"attributes\":{\"n\":" + i + "}}");
            if (lat != null) {
                lat.add(System.nanoTime() - t0);
            }
        } catch (Exception e) {
            failed.incrementAndGet();
        }
    }
}
