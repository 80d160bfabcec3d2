package com.acme.catalog.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.json.JsonMapper;

/**
 * Many streams: what N mostly quiet streams cost the services. Seeds N streams of
 * {@code --items} items and one PUBLIC release each through the resolver's REST writes, then starts a product
 * subscribed by pattern ({@code PRODUCT_STREAMS=*}) and measures how long until every stream serves its released
 * item publicly; then release → served for new streams against existing ones (one at a time), idle CPU, CPU per
 * write and commit → applied under a paced load spread over all streams, RSS, Prometheus series and the product
 * database's relations and size. The same-run ratio is new-stream p99 / existing-stream p99; the issue's targets
 * are ratios between runs at different N ({@code --compare=FILE} of an earlier run's JSON line).
 */
final class StreamsScenario implements Scenario {

    /** Public reads and the open-time checks: bounded, so the product is not flooded while it opens streams. */
    private static final int READERS = 8;

    @Override
    public String name() {
        return "streams";
    }

    @Override
    public String description() {
        return "N mostly quiet streams: open time of a product subscribed by pattern, new vs existing stream"
                + " release -> served, idle CPU, CPU/write and commit -> applied under load, RSS, series, PostgreSQL"
                + " relations [--streams=10 --items=10 --tenants=10 --seed-threads=8 --new=50 --rate=50 --warmup=5"
                + " --seconds=30 --idle=60 --open-timeout=3600 --compare=FILE (an earlier run's JSON line)]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        Shape shape = new Shape(o.integer("streams", 10), o.integer("items", 10), o.integer("tenants", 10));
        int seedThreads = o.integer("seed-threads", 8);
        int fresh = o.integer("new", 50);
        int rate = o.integer("rate", 50);
        int warmup = o.integer("warmup", 5);
        int seconds = o.integer("seconds", 30);
        int idle = o.integer("idle", 60);
        int openTimeout = o.integer("open-timeout", 3600);
        String compare = o.string("compare", null);
        System.setProperty("http.maxConnections", Integer.toString(Math.max(16, seedThreads)));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("streams", shape.streams);
        out.put("itemsPerStream", shape.items);
        out.put("tenants", shape.tenants);
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ExecutorService readers = Executors.newFixedThreadPool(READERS);
        long[] productLaunched = new long[1];
        try (Pipeline.Services p = Pipeline.Services.start("*", resolver -> {
            out.put("seeding", seed(shape, resolver, seedThreads));
            WriteScenario.progress("streams: starting the product with PRODUCT_STREAMS=*");
            productLaunched[0] = System.nanoTime();
        })) {
            out.put("productStartSeconds", seconds(System.nanoTime() - productLaunched[0]));
            out.put("open", open(shape, p, http, readers, productLaunched[0], openTimeout));
            out.putAll(newAndExisting(shape, p, http, fresh));
            out.put("drain", drain(p, openTimeout));
            out.put("idleCpuMsPerSecond", idle(p, idle));
            out.put("steady", steady(shape, p, rate, warmup, seconds));
            out.put("rssMiB", Map.of("resolver", rssMiB(p.writer.pid()), "product", rssMiB(p.receiver.pid())));
            out.put("series", series(http, p, shape.streams + fresh));
            out.put("postgres", postgres(p));
            out.put("serviceLogs", logs(p));
        } finally {
            readers.shutdownNow();
        }
        out.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        if (compare != null) {
            out.put("compare", compare(out, compare));
        }
        return out;
    }

    /**
     * Names: stream {@code s} is {@code t<s % tenants>/c<s>}; the new streams of the latency phase are
     * {@code t<m % tenants>/new<m>}. Every seeded stream holds items {@code item-0…} at revision 1 and the PUBLIC
     * release {@code r0} naming them, at positions 1 … items + 1.
     */
    record Shape(int streams, int items, int tenants) {

        Shape {
            tenants = Math.max(1, Math.min(tenants, streams));
        }

        String tenant(int s) {
            return "t" + (s % tenants);
        }

        String path(int s) {
            return tenant(s) + "/c" + s;
        }

        /** The PUBLIC release {@code releaseId} naming every item of a seeded stream at revision 1. */
        String release(String releaseId) {
            StringBuilder b = new StringBuilder("{\"op\":\"putRelease\",\"releaseId\":\"").append(releaseId)
                    .append("\",\"visibility\":\"PUBLIC\",\"items\":[");
            for (int i = 0; i < items; i++) {
                b.append(i == 0 ? "" : ",").append("{\"itemId\":\"item-").append(i).append("\",\"revision\":1}");
            }
            return b.append("]}").toString();
        }

        /** One transaction: {@code count} items and the PUBLIC release r0 naming them. */
        String seedBody(int count) {
            StringBuilder b = new StringBuilder("{\"changes\":[");
            for (int i = 0; i < count; i++) {
                b.append("{\"op\":\"upsertItem\",\"itemId\":\"item-").append(i)
                        .append("\",\"attributes\":{\"name\":\"item ").append(i).append("\",\"n\":").append(i)
                        .append("}},");
            }
            return b.append(new Shape(1, count, 1).release("r0")).append("]}").toString();
        }
    }

    /** N streams, one transaction each (items and release r0), from {@code threads} client threads. */
    static Map<String, Object> seed(Shape shape, ServiceProcess resolver, int threads) throws Exception {
        WriteScenario.progress("streams: seeding %d streams of %d items over %d tenants, %d client threads",
                shape.streams, shape.items, shape.tenants, threads);
        String body = shape.seedBody(shape.items);
        AtomicLong done = new AtomicLong();
        Latencies lat = new Latencies();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int s = 0; s < shape.streams; s++) {
                String url = resolver.baseUrl() + "/v1/streams/" + shape.path(s) + "/transactions";
                futures.add(pool.submit(() -> {
                    long sent = System.nanoTime();
                    PropagationScenario.sendKeepAlive("POST", url, body);
                    lat.add(System.nanoTime() - sent);
                    done.incrementAndGet();
                    return null;
                }));
            }
            long lastReport = System.nanoTime();
            for (Future<?> f : futures) {
                while (true) {
                    try {
                        f.get(1, TimeUnit.SECONDS);
                        break;
                    } catch (java.util.concurrent.TimeoutException slow) {
                        // report below
                    }
                    if (System.nanoTime() - lastReport > 5_000_000_000L) {
                        WriteScenario.progress("streams: seeded %d / %d", done.get(), shape.streams);
                        lastReport = System.nanoTime();
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        long wall = System.nanoTime() - start;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seconds", seconds(wall));
        m.put("transactions", lat.summary(wall));
        return m;
    }

    /**
     * From the product's launch until every seeded stream serves item-0 through the public read ({@code 200},
     * release r0). The product's database is polled every 250 ms for streams whose serving generation has applied
     * the release's position; those are then read publicly, {@link #READERS} at a time; a stream counts as served
     * at its first {@code 200}.
     */
    static Map<String, Object> open(Shape shape, Pipeline.Services p, HttpClient http,
            ExecutorService readers, long launched, int timeoutSeconds) throws Exception {
        WriteScenario.progress("streams: product up after %.1f s; waiting for %d streams to serve",
                seconds(System.nanoTime() - launched), shape.streams);
        Latencies served = new Latencies();
        Map<String, Integer> remaining = new HashMap<>();
        for (int s = 0; s < shape.streams; s++) {
            remaining.put(shape.path(s), s);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        long lastReport = 0;
        long lastServed = launched;
        int servingGenerations = 0;
        try (Connection c = p.receiverDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT s.tenant || '/' || s.catalog, g.applied_position FROM product.serving_generation s
                  JOIN product.generation g ON g.generation_id = s.generation_id""")) {
            while (!remaining.isEmpty() && System.nanoTime() < deadline) {
                List<String> applied = new ArrayList<>();
                servingGenerations = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        servingGenerations++;
                        if (rs.getLong(2) >= shape.items + 1 && remaining.containsKey(rs.getString(1))) {
                            applied.add(rs.getString(1));
                        }
                    }
                }
                List<Callable<String>> reads = new ArrayList<>();
                for (String path : applied) {
                    reads.add(() -> servesRelease(http, p, path, "r0") ? path : null);
                }
                for (Future<String> f : readers.invokeAll(reads)) {
                    if (f.get() != null) {
                        remaining.remove(f.get());
                        lastServed = System.nanoTime();
                        served.add(lastServed - launched);
                    }
                }
                if (System.nanoTime() - lastReport > 5_000_000_000L) {
                    WriteScenario.progress("streams: %.0f s after launch: %d serving generations, %d / %d served",
                            seconds(System.nanoTime() - launched), servingGenerations,
                            shape.streams - remaining.size(), shape.streams);
                    lastReport = System.nanoTime();
                }
                if (!remaining.isEmpty()) {
                    Thread.sleep(250);
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        // every stream served (or the timeout), from the product's launch (its JVM start included)
        m.put("secondsFromLaunch", seconds(lastServed - launched));
        m.put("servingGenerations", servingGenerations);
        m.put("notServed", remaining.size());
        m.put("notServedExamples", remaining.keySet().stream().sorted().limit(10).toList());
        // per stream: launch -> its first public 200 (p50/p99/max; perSecond is streams opened per second)
        m.put("perStreamFromLaunch", served.summary(Math.max(1, lastServed - launched)));
        WriteScenario.progress("streams: %d served, %d not, %.1f s after launch", shape.streams - remaining.size(),
                remaining.size(), seconds(lastServed - launched));
        return m;
    }

    /** Whether the public read of the stream's item-0 answers 200 as released by {@code releaseId}. */
    static boolean servesRelease(HttpClient http, Pipeline p, String path, String releaseId)
            throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(
                URI.create(p.receiver.baseUrl() + "/v1/catalog/" + path + "/items/item-0")).build(),
                HttpResponse.BodyHandlers.ofString());
        return res.statusCode() == 200 && res.body().contains("\"releaseId\":\"" + releaseId + "\"");
    }

    /**
     * One at a time, alternating: a new stream (item-0 and the PUBLIC release r0 in its first transaction) and a
     * new PUBLIC release {@code x<m>} of an existing stream (its items unchanged); each from the write's answer
     * (its commit) to the first public read of item-0 that answers 200 with that release.
     */
    private static Map<String, Object> newAndExisting(Shape shape, Pipeline.Services p, HttpClient http, int count)
            throws Exception {
        WriteScenario.progress("streams: %d new streams and %d releases of existing ones, one at a time", count,
                count);
        Latencies created = new Latencies();
        Latencies existing = new Latencies();
        long unserved = 0;
        String newBody = "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"item-0\",\"attributes\":{\"name\":"
                + "\"item 0\",\"n\":0}}," + new Shape(1, 1, 1).release("r0") + "]}";
        long start = System.nanoTime();
        try (Connection c = p.receiverDb.connect(); PreparedStatement applied = c.prepareStatement("""
                SELECT g.applied_position FROM product.serving_generation s
                  JOIN product.generation g ON g.generation_id = s.generation_id
                 WHERE s.tenant = ? AND s.catalog = ?""")) {
            for (int m = 0; m < count; m++) {
                String path = shape.tenant(m) + "/new" + m;
                unserved += release(p, http, applied, path, newBody, "r0", created) ? 0 : 1;
                int s = (int) ((m * 7919L) % shape.streams);
                unserved += release(p, http, applied, shape.path(s),
                        "{\"changes\":[" + shape.release("x" + m) + "]}", "x" + m, existing) ? 0 : 1;
            }
        }
        long wall = System.nanoTime() - start;
        Map<String, Object> newStream = created.summary(wall);
        Map<String, Object> existingStream = existing.summary(wall);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("newStreamReleaseToServed", newStream);
        m.put("existingStreamReleaseToServed", existingStream);
        m.put("releasesNeverServed", unserved);
        m.put("ratioNewToExistingP99",
                PropagationScenario.ratio(newStream.get("p99Ms"), existingStream.get("p99Ms")));
        WriteScenario.progress("streams: release -> served p99 new %s ms, existing %s ms", newStream.get("p99Ms"),
                existingStream.get("p99Ms"));
        return m;
    }

    /**
     * Writes one transaction to {@code path}; then polls the product's applied position of the stream every 2 ms
     * until it covers the write, then the public read until it names {@code releaseId}; records commit -> 200.
     */
    private static boolean release(Pipeline p, HttpClient http, PreparedStatement applied, String path, String body,
            String releaseId, Latencies into) throws Exception {
        String res = PropagationScenario.sendKeepAlive("POST", p.writer.baseUrl() + "/v1/streams/" + path
                + "/transactions", body);
        long answered = System.nanoTime();
        long position = PropagationScenario.longAfter(res, "\"lastPosition\":");
        long deadline = answered + TimeUnit.SECONDS.toNanos(60);
        String[] tc = path.split("/");
        applied.setString(1, tc[0]);
        applied.setString(2, tc[1]);
        while (System.nanoTime() < deadline) {
            boolean covered = false;
            try (ResultSet rs = applied.executeQuery()) {
                covered = rs.next() && rs.getLong(1) >= position;
            }
            if (covered && servesRelease(http, p, path, releaseId)) {
                into.add(System.nanoTime() - answered);
                return true;
            }
            Thread.sleep(2);
        }
        WriteScenario.progress("streams: %s release %s not served 60 s after its commit", path, releaseId);
        return false;
    }

    /**
     * Waits until every consumer of every open stream has reported durable progress through the stream's head: a
     * stream is served (its release public) before the relay's deliveries and the product's progress reports of
     * it are done, and idle CPU must measure a system with nothing left to do, not that backlog. Reports how long
     * it took after the open and new-stream phases, and how many (consumer, stream) pairs were behind then.
     */
    private static Map<String, Object> drain(Pipeline p, int timeoutSeconds) throws Exception {
        long start = System.nanoTime();
        long deadline = start + timeoutSeconds * 1_000_000_000L;
        long first = -1;
        long behind;
        try (Connection c = p.writerDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM resolver.stream_cursor s
                  JOIN resolver.retention_consumer k ON k.tenant = s.tenant AND k.catalog = s.catalog AND k.epoch = s.epoch
                 WHERE s.fenced_at IS NULL AND k.durable_position < s.position""")) {
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    behind = rs.getLong(1);
                }
                if (first < 0) {
                    first = behind;
                }
                if (behind == 0 || System.nanoTime() > deadline) {
                    break;
                }
                WriteScenario.progress("streams: draining, %d consumer positions behind their stream's head", behind);
                Thread.sleep(2_000);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seconds", seconds(System.nanoTime() - start));
        m.put("behindAtStart", first);
        m.put("behindAtEnd", behind);
        return m;
    }

    /** {@link PropagationScenario#idleCpuMsPerSecond} after 5 s to settle. */
    private static Map<String, Object> idle(Pipeline p, int seconds) throws Exception {
        if (seconds <= 0) {
            return Map.of();
        }
        WriteScenario.progress("streams: idle for 5 + %d s", seconds);
        Thread.sleep(5_000);
        return PropagationScenario.idleCpuMsPerSecond(p, seconds);
    }

    /**
     * {@code rate} single-item writes per second (PUT of one item; round robin over all streams) for
     * {@code warmup} unmeasured then {@code seconds} measured seconds; per write: its own latency (sent -> answer)
     * and commit -> applied (the product's serving generation's applied position covers the write's position,
     * polled every 2 ms for the streams with writes in flight only). The PUT changes an item the PUBLIC release
     * names at revision 1, so the public answer does not change: applied is the observable end.
     */
    private static Map<String, Object> steady(Shape shape, Pipeline p, int rate, int warmup, int seconds)
            throws Exception {
        WriteScenario.progress("streams: %d writes/s over %d streams, %d s warm-up then %d s measured", rate,
                shape.streams, warmup, seconds);
        Latencies write = new Latencies();
        Latencies commitToApplied = new Latencies();
        // per stream in flight: write position -> answered (nanos), or -answered for a warm-up write
        Map<Integer, ConcurrentSkipListMap<Long, Long>> pending = new ConcurrentHashMap<>();
        AtomicBoolean observing = new AtomicBoolean(true);
        AtomicLong failed = new AtomicLong();
        AtomicLong measuredDone = new AtomicLong();
        Thread observer = new Thread(() -> observeApplied(shape, p.receiverDb, pending, commitToApplied, observing),
                "streams-observer");
        observer.start();
        ExecutorService writers = Executors.newFixedThreadPool(16);
        long interval = 1_000_000_000L / Math.max(1, rate);
        long warmupWrites = (long) rate * warmup;
        long total = warmupWrites + (long) rate * seconds;
        Map<String, Long> cpuBefore = null;
        long start = System.nanoTime();
        long measureStart = start + warmupWrites * interval;
        try {
            for (long n = 0; n < total; n++) {
                long wait = start + n * interval - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                if (n == warmupWrites) {
                    cpuBefore = PropagationScenario.cpu(p);
                }
                boolean measured = n >= warmupWrites;
                int s = (int) (n % shape.streams);
                String url = p.writer.baseUrl() + "/v1/streams/" + shape.path(s) + "/items/item-"
                        + (n / shape.streams) % shape.items;
                String body = "{\"attributes\":{\"name\":\"item\",\"n\":" + n + "}}";
                writers.execute(() -> {
                    try {
                        long sent = System.nanoTime();
                        String res = PropagationScenario.sendKeepAlive("PUT", url, body);
                        long answered = System.nanoTime();
                        long position = PropagationScenario.longAfter(res, "\"position\":");
                        pending.computeIfAbsent(s, k -> new ConcurrentSkipListMap<>())
                                .put(position, measured ? answered : -answered);
                        if (measured) {
                            write.add(answered - sent);
                            measuredDone.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                });
            }
            writers.shutdown();
            writers.awaitTermination(60, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (pending.values().stream().anyMatch(m -> !m.isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } finally {
            writers.shutdownNow();
            observing.set(false);
            observer.join();
        }
        Map<String, Long> cpuAfter = PropagationScenario.cpu(p);
        Map<String, Long> cpuStart = cpuBefore;
        long wall = System.nanoTime() - measureStart;
        Map<String, Object> cpuPerWrite = PropagationScenario.cpuPerEvent(cpuStart, cpuAfter, measuredDone.get());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("targetWritesPerSecond", rate);
        m.put("achievedWritesPerSecond", Latencies.round(measuredDone.get() / (wall / 1e9)));
        m.put("failedWrites", failed.get());
        m.put("unobserved", pending.values().stream().mapToLong(Map::size).sum());
        m.put("write", write.summary(wall));
        m.put("commitToApplied", commitToApplied.summary(wall));
        // writer = resolver, receiver = product; each JVM and the backends connected to its database
        m.put("cpuMsPerWrite", cpuPerWrite);
        WriteScenario.progress("streams: write p99 %s ms, commit -> applied p99 %s ms, %s ms CPU per write",
                write.summary(wall).get("p99Ms"), commitToApplied.summary(wall).get("p99Ms"),
                cpuPerWrite.get("pipeline"));
        return m;
    }

    /** Every 2 ms, the applied position of the streams with writes in flight; records commit -> applied. */
    private static void observeApplied(Shape shape, TestDatabase db,
            Map<Integer, ConcurrentSkipListMap<Long, Long>> pending, Latencies into, AtomicBoolean observing) {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT substr(s.catalog, 2)::int, g.applied_position FROM product.serving_generation s
                  JOIN product.generation g ON g.generation_id = s.generation_id
                 WHERE (s.tenant, s.catalog) IN (SELECT * FROM unnest(?::text[], ?::text[]))""")) {
            while (observing.get()) {
                List<String> tenants = new ArrayList<>();
                List<String> catalogs = new ArrayList<>();
                pending.forEach((s, writes) -> {
                    if (!writes.isEmpty()) {
                        tenants.add(shape.tenant(s));
                        catalogs.add("c" + s);
                    }
                });
                if (!catalogs.isEmpty()) {
                    long now = System.nanoTime();
                    Array t = c.createArrayOf("text", tenants.toArray());
                    Array cs = c.createArrayOf("text", catalogs.toArray());
                    ps.setArray(1, t);
                    ps.setArray(2, cs);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ConcurrentSkipListMap<Long, Long> writes = pending.get(rs.getInt(1));
                            long applied = rs.getLong(2);
                            for (Map.Entry<Long, Long> w = writes.firstEntry(); w != null && w.getKey() <= applied;
                                    w = writes.firstEntry()) {
                                if (writes.remove(w.getKey(), w.getValue()) && w.getValue() > 0) {
                                    into.add(Math.max(0, now - w.getValue()));
                                }
                            }
                        }
                    }
                }
                Thread.sleep(2);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, ServiceProcess> services(Pipeline p) {
        Map<String, ServiceProcess> m = new LinkedHashMap<>();
        m.put("resolver", p.writer);
        m.put("product", p.receiver);
        return m;
    }

    /** VmRSS of the process in MiB, from /proc/PID/status; -1 where absent. */
    private static double rssMiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Latencies.round(Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0);
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    /**
     * Samples (non-comment lines) of each service's {@code /actuator/prometheus}: in total, per stream (all
     * {@code streams} the run wrote, the latency phase's new ones included) and the five metric names with most.
     */
    private static Map<String, Object> series(HttpClient http, Pipeline p, int streams) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, ServiceProcess> e : services(p).entrySet()) {
            String text = http.send(HttpRequest.newBuilder(URI.create(e.getValue().baseUrl()
                    + "/actuator/prometheus")).build(), HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Long> byName = new HashMap<>();
            text.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .forEach(l -> byName.merge(l.split("[{ ]", 2)[0], 1L, Long::sum));
            long samples = byName.values().stream().mapToLong(Long::longValue).sum();
            Map<String, Long> top = new LinkedHashMap<>();
            byName.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                    .forEach(t -> top.put(t.getKey(), t.getValue()));
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("samples", samples);
            one.put("perStream", Latencies.round(samples / (double) streams));
            one.put("largest", top);
            m.put(e.getKey(), one);
        }
        return m;
    }

    /** The product schema's relations by kind, and both databases' sizes. */
    private static Map<String, Object> postgres(Pipeline p) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Connection c = p.receiverDb.connect(); Statement st = c.createStatement()) {
            long total = 0;
            try (ResultSet rs = st.executeQuery("""
                    SELECT c.relkind, count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = 'product' GROUP BY c.relkind ORDER BY c.relkind""")) {
                Map<String, Long> kinds = new LinkedHashMap<>();
                while (rs.next()) {
                    kinds.put(rs.getString(1), rs.getLong(2));
                    total += rs.getLong(2);
                }
                m.put("productRelations", total);
                // r table, p partitioned table, i index, I partitioned index, S sequence, t TOAST, v view
                m.put("productRelationsByKind", kinds);
            }
            try (ResultSet rs = st.executeQuery("SELECT pg_database_size(current_database())")) {
                rs.next();
                m.put("productDatabaseMiB", Latencies.round(rs.getLong(1) / 1048576.0));
            }
        }
        try (Connection c = p.writerDb.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_database_size(current_database())")) {
            rs.next();
            m.put("resolverDatabaseMiB", Latencies.round(rs.getLong(1) / 1048576.0));
        }
        return m;
    }

    /** Each service's log file and its ERROR and WARN lines (read them after a run). */
    static Map<String, Object> logs(Pipeline p) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, ServiceProcess> e : services(p).entrySet()) {
            List<String> lines = Files.readAllLines(e.getValue().log());
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("path", e.getValue().log().toString());
            one.put("errors", lines.stream().filter(l -> l.contains(" ERROR ")).count());
            one.put("warnings", lines.stream().filter(l -> l.contains(" WARN ")).count());
            m.put(e.getKey(), one);
        }
        return m;
    }

    /** This run's figures over an earlier run's (the issue's targets: N = 10,000 against N = 10). */
    private static Map<String, Object> compare(Map<String, Object> now, String file) throws Exception {
        String line = null;
        for (String l : Files.readAllLines(Path.of(file))) {
            if (l.startsWith("{") && l.contains("\"scenario\":\"streams\"")) {
                line = l;
            }
        }
        if (line == null) {
            throw new IllegalArgumentException(file + " holds no JSON line of the streams scenario");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> then = JsonMapper.builder().build().readValue(line, Map.class);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("against", file);
        m.put("streams", now.get("streams") + " vs " + then.get("streams"));
        target(m, "idleCpuResolver", at(now, "idleCpuMsPerSecond", "writerJvm"),
                at(then, "idleCpuMsPerSecond", "writerJvm"), 1.5);
        target(m, "idleCpuProduct", at(now, "idleCpuMsPerSecond", "receiverJvm"),
                at(then, "idleCpuMsPerSecond", "receiverJvm"), 1.5);
        target(m, "cpuPerWrite", at(now, "steady", "cpuMsPerWrite", "pipeline"),
                at(then, "steady", "cpuMsPerWrite", "pipeline"), 1.3);
        target(m, "commitToAppliedP99", at(now, "steady", "commitToApplied", "p99Ms"),
                at(then, "steady", "commitToApplied", "p99Ms"), 1.5);
        target(m, "rssResolver", at(now, "rssMiB", "resolver"), at(then, "rssMiB", "resolver"), 1.5);
        target(m, "rssProduct", at(now, "rssMiB", "product"), at(then, "rssMiB", "product"), 1.5);
        return m;
    }

    private static void target(Map<String, Object> into, String name, Object now, Object then, double limit) {
        double r = PropagationScenario.ratio(now, then);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ratio", r);
        m.put("target", limit);
        m.put("met", r <= limit);
        into.put(name, m);
    }

    private static Object at(Map<String, Object> map, String... keys) {
        Object v = map;
        for (String k : keys) {
            v = ((Map<?, ?>) v).get(k);
        }
        return v;
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }
}
