package com.acme.catalog.bench;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Propagation latency and CPU per event: resolver commit (the write's HTTP answer) to "applied in the product" (the
 * product's serving generation's contiguous position covers the write), at a paced event rate, through the real
 * relay (LISTEN/NOTIFY wake, HTTP push, one product transaction per batch), after an unmeasured warm-up at the same
 * rate. Baseline in the same run, back to back with the same load generator, pacing, warm-up and observer: the
 * floor ({@link Pipeline.Floor}), the same two hops with nothing else; the figures are reported per
 * pipeline and as ratios services / floor. Also a bare NOTIFY from one connection to a LISTENing one. The services' own timers (relay delivery, product apply, resolver write) are
 * scraped before and after the measured phase and reported as means over it.
 */
final class PropagationScenario implements Scenario {

    private static final List<String> STAGE_TIMERS = List.of("resolver_write_seconds", "resolver_relay_lag_seconds",
            "resolver_relay_delivery_seconds", "product_inbox_apply_seconds",
            "resolver_write_coalescing_wait_seconds");

    @Override
    public String name() {
        return "propagation";
    }

    @Override
    public String description() {
        return "commit -> applied, the services against the floor (bench-floor) in one run, same paced load"
                + " [--rate=1000 (events/s) --seconds=20 --streams=4 --batch=5 (changes per write; 1 = PUT item)"
                + " --writers=32 --warmup=5 --idle=10 (s of idle CPU after the traffic) --pipelines=floor,services"
                + " --client=urlconnection|jdk --idempotency-keys=false (true: every write sends a new"
                + " Idempotency-Key; both: each pipeline unkeyed and keyed, --repeats=1 times each in ABBA order,"
                + " with the keyed/unkeyed ratios of the runs' means)]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int rate = o.integer("rate", 1000);
        int seconds = o.integer("seconds", 20);
        int streams = o.integer("streams", 4);
        int batch = o.integer("batch", 5);
        int writers = o.integer("writers", 32);
        int warmup = o.integer("warmup", 5);
        int idle = o.integer("idle", 10);
        List<String> pipelines = List.of(o.string("pipelines", "floor,services").split(","));
        String client = o.string("client", "urlconnection");
        String keys = o.string("idempotency-keys", "false");
        if (!List.of("false", "true", "both").contains(keys)) {
            throw new IllegalArgumentException("--idempotency-keys is false, true or both, got " + keys);
        }
        int repeats = o.integer("repeats", 1);
        List<Boolean> keyings = new ArrayList<>();
        if (keys.equals("both")) {
            // ABBA…: neither kind always runs first, so a drift over the run (the database's files, the page
            // cache, autovacuum of the previous run's dropped databases) falls on both alike
            for (int i = 0; i < repeats; i++) {
                keyings.add(i % 2 == 1);
                keyings.add(i % 2 == 0);
            }
        } else {
            keyings.add(keys.equals("true"));
        }
        if (!client.equals("urlconnection") && !client.equals("jdk")) {
            throw new IllegalArgumentException("--client is urlconnection or jdk, got " + client);
        }
        // keep an idle connection per writer thread (the JDK keeps 5 by default and would reconnect the rest)
        System.setProperty("http.maxConnections", Integer.toString(Math.max(5, writers)));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("targetEventsPerSecond", rate);
        out.put("streams", streams);
        out.put("changesPerTransaction", batch);
        out.put("writerThreads", writers);
        out.put("warmupSeconds", warmup);
        out.put("measuredSeconds", seconds);
        out.put("writeClient", client);
        out.put("idempotencyKeys", keys);
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        try (TestDatabase ndb = TestDatabase.create("bench_prop_notify")) {
            out.put("notifyBaseline", notifyBaseline(ndb));
        }
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Writer writer = client.equals("jdk") ? (method, url, body, key) -> sendJdk(http, method, url, body, key)
                : PropagationScenario::sendKeepAlive;
        Map<String, Object> results = new LinkedHashMap<>();
        Map<String, List<Map<String, Object>>> byKeying = new LinkedHashMap<>();
        for (String name : pipelines) {
            int run = 0;
            for (boolean keyed : keyings) {
                // "both": a fresh pipeline each time, so every run starts from the same empty databases
                String kind = name + (keyed ? "-keyed" : "-unkeyed");
                String label = keyings.size() > 1 ? kind + "-" + (++run) : name;
                try (Pipeline p = Pipeline.start(name, streams, http)) {
                    WriteScenario.progress("propagation [%s]: %d events/s on %d streams, %d s warm-up then %d s"
                            + " measured, then %d s idle", label, rate, streams, warmup, seconds, idle);
                    Map<String, Object> measured = measure(p, writer, http, rate, seconds, streams, batch, writers,
                            warmup, idle, keyed);
                    results.put(label, measured);
                    byKeying.computeIfAbsent(kind, k -> new ArrayList<>()).add(measured);
                }
            }
        }
        out.put("pipelines", results);
        if (keyings.size() > 1) {
            Map<String, Object> keyedRatios = new LinkedHashMap<>();
            for (String name : pipelines) {
                keyedRatios.put(name, keyedRatios(byKeying.get(name + "-keyed"), byKeying.get(name + "-unkeyed")));
            }
            out.put("ratiosKeyedToUnkeyed", keyedRatios);
        }
        if (results.containsKey("services") && results.containsKey("floor")) {
            out.put("ratiosServicesToFloor", ratios(cast(results.get("services")), cast(results.get("floor"))));
        }
        out.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        return out;
    }

    /** One pipeline's paced run, its CPU per event by component, its stage timers, then its idle CPU. */
    private static Map<String, Object> measure(Pipeline p, Writer writer, HttpClient http, int rate, int seconds,
            int streams, int batch, int writers, int warmup, int idle, boolean keyed) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        Run run = new Run(writer, p, streams, batch, writers, keyed);
        try {
            // taken on another thread while the warm-up's traffic goes on, so the measured phase starts in the
            // steady state instead of from a drained, idle pipeline
            AtomicReference<Map<String, double[]>> before = new AtomicReference<>();
            AtomicReference<Map<String, Long>> cpuBefore = new AtomicReference<>();
            Map<String, Object> phase = run.phase(rate, warmup, seconds, () -> {
                WriteScenario.progress("propagation [%s]: measuring for %d s", p.name, seconds);
                cpuBefore.set(cpu(p));
                before.set(timers(http, p.scraped()));
            });
            Map<String, Long> cpuAfter = cpu(p);
            out.putAll(phase);
            if (!p.scraped().isEmpty()) {
                out.put("stages", stages(before.get(), timers(http, p.scraped())));
            }
            long events = ((Number) ((Map<?, ?>) phase.get("propagation")).get("operations")).longValue() * batch;
            out.put("cpuMsPerEvent", cpuPerEvent(cpuBefore.get(), cpuAfter, events));
        } finally {
            run.close();
        }
        if (idle > 0) {
            out.put("idleCpuMsPerSecond", idleCpuMsPerSecond(p, idle));
        }
        return out;
    }

    /** CPU ms per second of each component of {@link #cpu} (the machine's left out) over {@code idle} seconds. */
    static Map<String, Object> idleCpuMsPerSecond(Pipeline p, int idle) throws InterruptedException {
        Map<String, Long> idleBefore = cpu(p);
        Thread.sleep(idle * 1000L);
        Map<String, Long> idleAfter = cpu(p);
        Map<String, Object> perSecond = new LinkedHashMap<>();
        idleAfter.forEach((k, v) -> {
            if (!k.startsWith("machine")) {
                perSecond.put(k, Latencies.round((v - idleBefore.get(k)) / (double) idle));
            }
        });
        return perSecond;
    }

    /** services / floor: whole-pipeline CPU per event, the machine's CPU per event, and commit -> applied p99. */
    private static Map<String, Object> ratios(Map<String, Object> services, Map<String, Object> floor) {
        Map<String, Object> r = new LinkedHashMap<>();
        Map<String, Object> sc = cast(services.get("cpuMsPerEvent"));
        Map<String, Object> fc = cast(floor.get("cpuMsPerEvent"));
        r.put("cpuPerEventPipeline", ratio(sc.get("pipeline"), fc.get("pipeline")));
        r.put("cpuPerEventMachine", ratio(sc.get("machine"), fc.get("machine")));
        r.put("p99", ratio(cast(services.get("propagation")).get("p99Ms"), cast(floor.get("propagation")).get("p99Ms")));
        r.put("p50", ratio(cast(services.get("propagation")).get("p50Ms"), cast(floor.get("propagation")).get("p50Ms")));
        return r;
    }

    /**
     * keyed / unkeyed, one pipeline, each the mean over its runs: whole-pipeline, writer-JVM and writer-database CPU
     * per event, and the client's write p99 and p50 (the target for keys is CPU ≤ 1.1×, write p99 ≤ 1.2×).
     */
    private static Map<String, Object> keyedRatios(List<Map<String, Object>> keyed,
            List<Map<String, Object>> unkeyed) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("runsEach", keyed.size());
        r.put("cpuPerEventPipeline", ratio(mean(keyed, "cpuMsPerEvent", "pipeline"),
                mean(unkeyed, "cpuMsPerEvent", "pipeline")));
        r.put("cpuPerEventWriterJvm", ratio(mean(keyed, "cpuMsPerEvent", "writerJvm"),
                mean(unkeyed, "cpuMsPerEvent", "writerJvm")));
        r.put("cpuPerEventWriterDatabase", ratio(mean(keyed, "cpuMsPerEvent", "writerDatabase"),
                mean(unkeyed, "cpuMsPerEvent", "writerDatabase")));
        r.put("writeP99", ratio(mean(keyed, "write", "p99Ms"), mean(unkeyed, "write", "p99Ms")));
        r.put("writeP50", ratio(mean(keyed, "write", "p50Ms"), mean(unkeyed, "write", "p50Ms")));
        r.put("propagationP99", ratio(mean(keyed, "propagation", "p99Ms"), mean(unkeyed, "propagation", "p99Ms")));
        return r;
    }

    /** The mean over the runs of {@code run[section][field]}. */
    private static double mean(List<Map<String, Object>> runs, String section, String field) {
        double sum = 0;
        for (Map<String, Object> run : runs) {
            sum += ((Number) cast(run.get(section)).get(field)).doubleValue();
        }
        return runs.isEmpty() ? 0 : sum / runs.size();
    }

    static double ratio(Object a, Object b) {
        return Latencies.round(((Number) a).doubleValue() / Math.max(((Number) b).doubleValue(), 0.001));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object map) {
        return (Map<String, Object>) map;
    }

    /**
     * Sends one write (with the writer token, and the {@code Idempotency-Key} unless {@code key} is null) and
     * answers the response body; throws unless 2xx.
     */
    @FunctionalInterface
    private interface Writer {
        String send(String method, String url, String body, String key) throws Exception;
    }

    /** Paced writers and one observer of the product's applied positions, over one or more phases. */
    private static final class Run implements AutoCloseable {
        private final Writer writer;
        private final Pipeline pipeline;
        private final int streams;
        private final String body;
        private final ExecutorService writers;
        /** Per stream: last position of each write -> when it was sent and answered, and its phase's recorders. */
        private final List<ConcurrentSkipListMap<Long, Sent>> committed = new java.util.ArrayList<>();
        private final AtomicLong polls = new AtomicLong();
        private final AtomicBoolean observing = new AtomicBoolean(true);
        private final Thread observer;
        private final int batch;
        /** Null: writes carry no idempotency key; otherwise the prefix of each write's own key. */
        private final String keyPrefix;

        Run(Writer writer, Pipeline pipeline, int streams, int batch, int writerThreads, boolean keyed) {
            this.writer = writer;
            this.keyPrefix = keyed ? "bench-" + java.util.UUID.randomUUID() + "-" : null;
            this.pipeline = pipeline;
            this.streams = streams;
            this.batch = batch;
            for (int s = 0; s < streams; s++) {
                committed.add(new ConcurrentSkipListMap<>());
            }
            StringBuilder changes = new StringBuilder("{\"changes\":[");
            for (int i = 0; i < batch; i++) {
                changes.append(i == 0 ? "" : ",").append("{\"op\":\"upsertItem\",\"itemId\":\"sku-").append(i)
                        .append("\",\"attributes\":{\"n\":").append(i).append("}}");
            }
            this.body = changes.append("]}").toString();
            this.writers = Executors.newFixedThreadPool(writerThreads);
            this.observer = new Thread(() -> observe(pipeline.receiverDb, pipeline.appliedSql(streams)),
                    "propagation-observer");
            observer.start();
        }

        /**
         * One paced loop: {@code warmup} seconds whose writes are not recorded, then {@code seconds} measured ones
         * at the same pace without a pause; {@code atMeasureStart} runs on its own thread when the first measured
         * write is due. Answers the measured phase's figures once its writes are applied (or 60 s have passed).
         */
        Map<String, Object> phase(int rate, int warmup, int seconds, ThrowingRunnable atMeasureStart)
                throws Exception {
            long transactionsPerSecond = Math.max(1, rate / batch);
            long intervalNanos = 1_000_000_000L / transactionsPerSecond;
            long warmupWrites = transactionsPerSecond * warmup;
            long total = warmupWrites + transactionsPerSecond * seconds;
            AtomicLong done = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong measuredDone = new AtomicLong();
            long start = System.nanoTime();
            long measureStart = start + warmupWrites * intervalNanos;
            PhaseLatencies measured = new PhaseLatencies(measureStart);
            CompletableFuture<Void> scrape = null;
            long pollsBefore = 0;
            long behind = 0;
            for (long n = 0; n < total; n++) {
                long due = start + n * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } else if (-wait > 100_000_000L && n >= warmupWrites) {
                    behind++;
                }
                if (n == warmupWrites) {
                    pollsBefore = polls.get();
                    scrape = CompletableFuture.runAsync(() -> {
                        try {
                            atMeasureStart.run();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
                PhaseLatencies lat = n < warmupWrites ? null : measured;
                int s = (int) (n % streams);
                long number = n;
                writers.execute(() -> {
                    try {
                        long sent = System.nanoTime();
                        // one change: PUT of one of 100 items; more: one transaction of `batch` changes
                        String key = keyPrefix == null ? null : keyPrefix + number;
                        String res = batch == 1
                                ? writer.send("PUT", pipeline.itemUrl(s, "sku-" + number % 100),
                                        "{\"attributes\":{\"n\":" + number + "}}", key)
                                : writer.send("POST", pipeline.transactionUrl(s), body, key);
                        long now = System.nanoTime();
                        if (lat != null) {
                            lat.write.add(now - sent);
                        }
                        long last = longAfter(res, batch == 1 ? "\"position\":" : "\"lastPosition\":");
                        committed.get(s).put(last, new Sent(sent, now, lat));
                        done.incrementAndGet();
                        if (lat != null) {
                            measuredDone.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                });
            }
            // a box that cannot keep up leaves writes queued in the pool: give them 60 s, then report what is left
            long lastDue = start + (total - 1) * intervalNanos;
            while (done.get() + failed.get() < total && System.nanoTime() - lastDue < TimeUnit.SECONDS.toNanos(60)) {
                Thread.sleep(5);
            }
            long unfinished = total - done.get() - failed.get();
            long wall = System.nanoTime() - measureStart;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (pending() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (scrape != null) {
                scrape.get(60, TimeUnit.SECONDS);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("achievedEventsPerSecond", Latencies.round(measuredDone.get() * batch / (wall / 1e9)));
            // one write = one POST …/transactions of `batch` changes (the "writes/s")
            m.put("achievedWritesPerSecond", Latencies.round(measuredDone.get() / (wall / 1e9)));
            m.put("failedWrites", failed.get());
            m.put("pacingFellBehind", behind);
            m.put("writesUnfinished60sAfterLastDue", unfinished);
            // the client's write latency: sent -> HTTP answer (coalescing wait, lock, commit)
            m.put("write", measured.write.summary(wall));
            m.put("propagation", measured.commitToApplied.summary(wall));
            m.put("sentToApplied", measured.sentToApplied.summary(wall));
            m.put("propagationAfterFirst2s",
                    measured.afterFirstTwoSeconds.summary(Math.max(1, wall - 2_000_000_000L)));
            m.put("unobserved", pending());
            m.put("observerPollsPerSecond", Latencies.round((polls.get() - pollsBefore) / (wall / 1e9)));
            // seconds (from the phase start) in which some write took over 25 ms: "second: writes over / worst ms"
            Map<String, String> slow = new LinkedHashMap<>();
            new TreeMap<>(measured.bySecond).forEach((sec, v) -> {
                if (v[0] > 0) {
                    slow.put(Long.toString(sec), v[0] + " / " + Latencies.round(v[1] / 1e6));
                }
            });
            m.put("secondsWithWritesOver25Ms", slow);
            committed.forEach(Map::clear);
            return m;
        }

        private long pending() {
            return committed.stream().mapToLong(Map::size).sum();
        }

        /**
         * Polls each stream's applied position every 2 ms; a write counts as applied at the first poll whose
         * position covers its last position (latency = that poll's start minus the write's HTTP answer).
         */
        private void observe(TestDatabase receiverDb, String appliedSql) {
            try (Connection c = receiverDb.connect();
                 PreparedStatement ps = c.prepareStatement(appliedSql)) {
                while (observing.get()) {
                    long now = System.nanoTime();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            int stream = rs.getInt(1);
                            if (stream >= streams) {
                                continue;
                            }
                            long applied = rs.getLong(2);
                            ConcurrentSkipListMap<Long, Sent> writes = committed.get(stream);
                            for (Map.Entry<Long, Sent> w = writes.firstEntry(); w != null && w.getKey() <= applied;
                                    w = writes.firstEntry()) {
                                if (writes.remove(w.getKey(), w.getValue()) && w.getValue().phase() != null) {
                                    w.getValue().record(now);
                                }
                            }
                        }
                    }
                    polls.incrementAndGet();
                    Thread.sleep(2); // 2 ms resolution; a tighter poll would take a core from the services
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            writers.shutdownNow();
            observing.set(false);
            observer.join();
        }
    }

    /** A task that may throw (the metric scrapes at the start of the measured phase). */
    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** One write: when it was sent and when its HTTP answer (the commit) arrived; its phase's recorders or null. */
    private record Sent(long sent, long answered, PhaseLatencies phase) {

        /** Records this write as applied at the poll that started at {@code now}. */
        void record(long now) {
            long latency = Math.max(0, now - answered);
            phase.commitToApplied.add(latency);
            phase.sentToApplied.add(Math.max(0, now - sent));
            long sinceStart = answered - phase.start;
            if (sinceStart >= 2_000_000_000L) {
                phase.afterFirstTwoSeconds.add(latency);
            }
            long[] sec = phase.bySecond.computeIfAbsent(Math.max(0, sinceStart) / 1_000_000_000L, k -> new long[2]);
            synchronized (sec) {
                sec[0] += latency > 25_000_000L ? 1 : 0;
                sec[1] = Math.max(sec[1], latency);
            }
        }
    }

    /**
     * The measured phase's recorders: write sent -> its HTTP answer (the write's latency as its client sees it);
     * commit (the write's HTTP answer) -> applied; write sent -> applied (the
     * write's own latency, coalescing wait included, plus propagation); commit -> applied for the writes answered
     * from the third second of the phase on; and, per second of the phase, the writes over 25 ms and the worst.
     */
    private static final class PhaseLatencies {
        final long start;
        final Latencies commitToApplied = new Latencies();
        final Latencies sentToApplied = new Latencies();
        final Latencies afterFirstTwoSeconds = new Latencies();
        final Latencies write = new Latencies();
        final Map<Long, long[]> bySecond = new java.util.concurrent.ConcurrentHashMap<>();

        PhaseLatencies(long start) {
            this.start = start;
        }
    }

    /** Sum (s), count and max (s) of each stage timer, over all its tags, from both services. */
    private static Map<String, double[]> timers(HttpClient http, List<ServiceProcess> services) throws Exception {
        Pattern line = Pattern.compile("^(\\w+)_(sum|count|max)(\\{[^}]*\\})? (\\S+)$");
        Map<String, double[]> acc = new TreeMap<>();
        for (ServiceProcess sp : services) {
            String text = http.send(HttpRequest.newBuilder(URI.create(sp.baseUrl() + "/actuator/prometheus")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String l : text.split("\n")) {
                if (l.startsWith("resolver_relay_delivered_events_total")) {
                    acc.computeIfAbsent("deliveredEvents", k -> new double[3])[1]
                            += Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                    continue;
                }
                Matcher m = line.matcher(l);
                if (!m.matches() || !STAGE_TIMERS.contains(m.group(1))
                        || (m.group(3) != null && m.group(3).contains("outcome=\"failed\""))) {
                    continue;
                }
                double[] v = acc.computeIfAbsent(m.group(1), k -> new double[3]);
                double value = Double.parseDouble(m.group(4));
                switch (m.group(2)) {
                    case "sum" -> v[0] += value;
                    case "count" -> v[1] += value;
                    default -> v[2] = Math.max(v[2], value);
                }
            }
        }
        return acc;
    }

    private static Map<String, Object> stages(Map<String, double[]> before, Map<String, double[]> after) {
        Map<String, Object> out = new LinkedHashMap<>();
        double events = after.getOrDefault("deliveredEvents", new double[3])[1]
                - before.getOrDefault("deliveredEvents", new double[3])[1];
        double deliveries = after.getOrDefault("resolver_relay_delivery_seconds", new double[3])[1]
                - before.getOrDefault("resolver_relay_delivery_seconds", new double[3])[1];
        out.put("eventsPerDelivery", Latencies.round(deliveries == 0 ? 0 : events / deliveries));
        for (String name : STAGE_TIMERS) {
            double[] a = after.getOrDefault(name, new double[3]);
            double[] b = before.getOrDefault(name, new double[3]);
            double count = a[1] - b[1];
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("count", (long) count);
            m.put("meanMs", Latencies.round(count == 0 ? 0 : (a[0] - b[0]) / count * 1000));
            m.put("recentMaxMs", Latencies.round(a[2] * 1000));
            out.put(name.substring(0, name.length() - "_seconds".length()), m);
        }
        return out;
    }

    /**
     * CPU time (ms, user + system) so far of each component: the pipeline's two JVMs and the PostgreSQL backends
     * connected to each of its databases (the observer's own backend included in the receiver's), the bench, every
     * PostgreSQL process, and the machine. Read from /proc; absent elsewhere.
     */
    static Map<String, Long> cpu(Pipeline p) {
        Map<String, Long> m = new LinkedHashMap<>(p.cpu());
        m.put("bench", ProcessCpu.millis(ProcessHandle.current().pid()));
        m.put("postgresAllProcesses", ProcessCpu.postgresMillis());
        long[] machine = ProcessCpu.machineMillis();
        m.put("machineBusy", machine[0]);
        m.put("machineTotal", machine[1]);
        return m;
    }

    /**
     * Per event: each component's CPU, {@code postgresAllProcesses} (every PostgreSQL process, parallel workers
     * and autovacuum included, which the per-database figures miss) and {@code machine} (all processes); plus
     * {@code machineBusyPercent}, how busy the whole machine's cores were over the phase.
     */
    static Map<String, Object> cpuPerEvent(Map<String, Long> before, Map<String, Long> after, long events) {
        Map<String, Object> out = new LinkedHashMap<>();
        after.forEach((k, v) -> {
            if (!k.equals("machineBusy") && !k.equals("machineTotal")) {
                out.put(k, Latencies.round(events == 0 ? 0 : (v - before.get(k)) / (double) events));
            }
        });
        long pipeline = 0;
        for (String k : List.of("writerJvm", "receiverJvm", "writerDatabase", "receiverDatabase")) {
            pipeline += after.get(k) - before.get(k);
        }
        // the whole pipeline: both JVMs and both databases' backends (not the bench, not other PostgreSQL processes)
        out.put("pipeline", Latencies.round(events == 0 ? 0 : pipeline / (double) events));
        long busy = after.get("machineBusy") - before.get("machineBusy");
        long total = after.get("machineTotal") - before.get("machineTotal");
        out.put("machine", Latencies.round(events == 0 ? 0 : busy / (double) events));
        out.put("machineBusyPercent", Latencies.round(total <= 0 ? 0 : 100.0 * busy / total));
        return out;
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

    /**
     * A write over {@link HttpURLConnection}: blocking, on the JDK's keep-alive connection cache. The load generator
     * shares the 2 cores with the services; per request this costs it about half the CPU of {@link HttpClient}'s
     * asynchronous machinery (docs/benchmarks.md), which is left to the services.
     */
    static String sendKeepAlive(String method, String url, String body) throws Exception {
        return sendKeepAlive(method, url, body, null);
    }

    /** {@link #sendKeepAlive(String, String, String)} with an {@code Idempotency-Key} (none when null). */
    static String sendKeepAlive(String method, String url, String body, String key) throws Exception {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setRequestMethod(method);
        c.setDoOutput(true);
        c.setRequestProperty("Authorization", "Bearer w");
        c.setRequestProperty("Content-Type", "application/json");
        if (key != null) {
            c.setRequestProperty("Idempotency-Key", key);
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        c.setFixedLengthStreamingMode(bytes.length);
        try (OutputStream out = c.getOutputStream()) {
            out.write(bytes);
        }
        int status = c.getResponseCode();
        try (InputStream in = status / 100 == 2 ? c.getInputStream() : c.getErrorStream()) {
            String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (status / 100 != 2) {
                throw new IllegalStateException(method + " " + url + " answered " + status + ": " + text);
            }
            return text;
        }
    }

    /** A write over {@link HttpClient}, with its idempotency key unless null. */
    private static String sendJdk(HttpClient http, String method, String url, String body, String key)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer w")
                .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        java.net.http.HttpResponse<String> res = http.send(b.build(), java.net.http.HttpResponse.BodyHandlers
                .ofString());
        if (res.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }

    /** The number after {@code key} in a JSON answer (the write's position). */
    static long longAfter(String json, String key) {
        int at = json.indexOf(key);
        if (at < 0) {
            throw new IllegalStateException("no " + key + " in " + json);
        }
        int i = at + key.length();
        int end = i;
        while (end < json.length() && Character.isDigit(json.charAt(end))) {
            end++;
        }
        return Long.parseLong(json.substring(i, end));
    }
}
