package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.bench.StreamsScenario.Shape;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Restoring the resolver's database under many streams, as an operator follows docs/runbooks/restore.md:
 *
 * <pre>
 * java -jar bench/target/bench.jar restore [--streams=10 --tenants=10 --lost=0.10 --mode=auto --sample=100
 *     --lost-sample=100 --seed-threads=8 --readers=8 --timeout=3600 --open-timeout=3600]
 * </pre>
 *
 * <ol>
 * <li>Set-up (not part of the RTO): a resolver and a product from their jars on fresh databases of their own (and a
 * control store of its own); {@code --streams} streams {@code t<s mod tenants>/c<s>}, each one transaction of
 * {@code item-0} and the PUBLIC release {@code r0}, from {@code --seed-threads} clients
 * ({@link StreamsScenario#seed}); then the product subscribed with {@code PRODUCT_STREAMS=t0/*,…,t<tenants-1>/*},
 * until every stream serves {@code item-0} publicly ({@link StreamsScenario#open}).</li>
 * <li>{@code pg_dump --format=custom} of the resolver's database.</li>
 * <li>The lost tail: on {@code --lost} of the streams (spread evenly, at least one), one more transaction:
 * {@code lost-1} and the PUBLIC release {@code r1} naming it; until the product applied and serves it, and the
 * control store recorded the new head as the high-water mark.</li>
 * <li>The resolver stopped; {@code DROP DATABASE … WITH (FORCE)}, {@code CREATE DATABASE}, {@code pg_restore
 * --exit-on-error --no-owner}; the resolver started on it. "Restore done" is the resolver healthy again.</li>
 * <li>The runbook ({@link RestoreRunbook}): maintenance on (product, resolver); the rotation, {@code --mode}
 * {@code per-stream} (list the streams, one {@code POST /v1/epochs/{t}/{c}/rotate} each: today's runbook, the
 * baseline) or {@code fleet} (one {@code POST /v1/epochs/rotations} of scope all, then its job polled until DONE);
 * {@code auto} is fleet when the resolver's OpenAPI document has that endpoint; {@code both} runs per-stream, then
 * fleet, each on fresh services; then maintenance off (resolver, product).</li>
 * <li>From the product's maintenance-off: until every stream is CURRENT at epoch 2 ({@link RestoreWatch}: the fleet
 * completeness view every 0.5 s in fleet mode when the product has it, else each pending stream's completeness
 * every 0.5 s, {@code --readers} at a time); meanwhile {@code item-0} of {@code --sample} unaffected streams is read
 * every 0.25 s until it serves release {@code r0} again, and {@code lost-1} of {@code --lost-sample} affected streams
 * every 0.5 s until the end.</li>
 * <li>Verification (not counted as operator calls): the resolver's {@code state-checksum} against the product's
 * {@code projection-checksum}, profiles accepted-state-v1 and public-view-v1, at epoch 2, for every affected stream
 * and the unaffected sample; {@code lost-1} of every affected stream (404) and {@code item-0} of every stream (200,
 * release r0); every affected and sampled stream's completeness, stream by stream (a fleet view that ended the
 * RTO early shows here); the product's rebuilds since the resolver stopped (rows of {@code product.rebuild}: there
 * is no list endpoint; and {@code product_rebuilds_finished_total}'s increase).</li>
 * </ol>
 *
 * <p>The JSON line's headline members: {@code operatorCalls} (every call the runbook made: maintenance switches,
 * stream listing pages, rotations; the reads that only wait — rotation job, completeness — are {@code waitReads}),
 * {@code rotationSeconds} (first rotation call sent to the last rotation answered, or to the job seen DONE),
 * {@code rtoSeconds} (restore done to every stream seen CURRENT at epoch 2), {@code unaffectedKeptServed}
 * ({@code p50Seconds}/{@code p99Seconds} from the product's maintenance-off to the first 200 of release r0),
 * {@code rebuildsRun}, {@code lostItemsServedAfterMaintenanceOff} (answers 200 for a lost item, sampled and at the
 * end: must be 0), {@code checksumsEqual}; {@code ok} says whether every correctness check held. Load average at
 * start and end.
 *
 * <p>The same-run baselines, in {@code ratios}: {@code rtoToSetUp} is the RTO divided by the time the same services
 * took to write and serve the N streams in the first place (seeding, plus the product's launch to every stream
 * served, its JVM start left out). That divides out the machine's speed and keeps the ratio comparable across N: a
 * restore that rebuilds every stream costs about what opening them did (a ratio near or above 1 whatever the lost
 * fraction), one whose cost follows what the restore lost falls with {@code --lost}. {@code rebuildsToAffected} is
 * the rebuilds run over the streams whose projection differed from the restored state (1.0 when only those are
 * rebuilt). With {@code --mode=both}, {@code ratiosFleetToPerStream} compares the two runbooks at the same N.
 */
final class RestoreScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");
    /** Every stream starts in epoch 1; the rotation after the restore moves each to 2. */
    private static final long NEW_EPOCH = 2;
    /** The lost tail's transaction: the positions after the seed's item (1) and release (2). */
    private static final long LOST_HEAD = 4;
    private static final String LOST_BODY = "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"lost-1\","
            + "\"attributes\":{\"name\":\"lost 1\",\"n\":1}},{\"op\":\"putRelease\",\"releaseId\":\"r1\","
            + "\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"lost-1\",\"revision\":1}]}]}";

    @Override
    public String name() {
        return "restore";
    }

    @Override
    public String description() {
        return "restore of the resolver's database under N streams, today's runbook or the fleet one: operator"
                + " calls, rotation s, RTO, unaffected streams served again, rebuilds, lost items served, checksums"
                + " [--streams=10 --tenants=10 --lost=0.10 --mode=auto|per-stream|fleet|both --sample=100"
                + " --lost-sample=100 --seed-threads=8 --readers=8 --timeout=3600 --open-timeout=3600]";
    }

    /** The run's settings, from the command line. */
    private record Settings(int streams, int tenants, double lost, int sample, int lostSample, int seedThreads,
            int readers, int timeoutSeconds, int openTimeoutSeconds) {

        static Settings of(Options o) {
            double lost = Double.parseDouble(o.string("lost", "0.10"));
            if (lost < 0 || lost > 1) {
                throw new IllegalArgumentException("--lost is a fraction of the streams (0..1), got " + lost);
            }
            int streams = o.integer("streams", 10);
            if (streams < 1) {
                throw new IllegalArgumentException("--streams must be at least 1, got " + streams);
            }
            return new Settings(streams, o.integer("tenants", 10), lost, o.integer("sample", 100),
                    o.integer("lost-sample", 100), o.integer("seed-threads", 8), o.integer("readers", 8),
                    o.integer("timeout", 3600), o.integer("open-timeout", 3600));
        }
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        Settings s = Settings.of(o);
        String mode = o.string("mode", "auto");
        System.setProperty("http.maxConnections", Integer.toString(Math.max(16, s.seedThreads)));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        if (!mode.equals("both")) {
            return once(mode, s, http);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", "both");
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        Map<String, Object> perStream = once("per-stream", s, http);
        Map<String, Object> fleet = once("fleet", s, http);
        out.put("perStream", perStream);
        out.put("fleet", fleet);
        Map<String, Object> r = new LinkedHashMap<>();
        for (String k : List.of("rtoSeconds", "operatorCalls", "rotationSeconds", "rebuildsRun")) {
            r.put(k, ratio(fleet.get(k), perStream.get(k)));
        }
        r.put("unaffectedKeptServedP99", ratio(kept(fleet).get("p99Seconds"), kept(perStream).get("p99Seconds")));
        out.put("ratiosFleetToPerStream", r);
        out.put("ok", Boolean.TRUE.equals(perStream.get("ok")) && Boolean.TRUE.equals(fleet.get("ok")));
        out.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        return out;
    }

    /** a / b, or null when either is missing (a run whose streams never all turned CURRENT has no RTO). */
    private static Double ratio(Object a, Object b) {
        return a == null || b == null ? null : PropagationScenario.ratio(a, b);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> kept(Map<String, Object> run) {
        return (Map<String, Object>) run.get("unaffectedKeptServed");
    }

    /** One restore on fresh services, the rotation as {@code requested}. */
    private static Map<String, Object> once(String requested, Settings s, HttpClient http) throws Exception {
        Shape shape = new Shape(s.streams, 1, s.tenants);
        List<String> all = new ArrayList<>();
        for (int i = 0; i < shape.streams(); i++) {
            all.add(shape.path(i));
        }
        List<String> affected = affected(all, s.lost);
        Set<String> affectedSet = new HashSet<>(affected);
        List<String> unaffected = all.stream().filter(x -> !affectedSet.contains(x)).toList();
        StringBuilder productStreams = new StringBuilder();
        for (int t = 0; t < shape.tenants(); t++) {
            productStreams.append(t == 0 ? "" : ",").append("t").append(t).append("/*");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> setUp = new LinkedHashMap<>();
        out.put("streams", shape.streams());
        out.put("tenants", shape.tenants());
        out.put("productStreams", productStreams.toString());
        out.put("lostFraction", s.lost);
        out.put("affectedStreams", affected.size());
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        Path objects = Files.createTempDirectory("bench-restore-objects-");
        Path dump = Files.createTempFile("bench-restore-resolver-", ".dump");
        ExecutorService readers = Executors.newFixedThreadPool(s.readers);
        ExecutorService keptPool = Executors.newFixedThreadPool(4);
        ExecutorService lostPool = Executors.newFixedThreadPool(4);
        RestoreRunbook.Mode[] mode = new RestoreRunbook.Mode[1];
        long[] launched = new long[1];
        try (Pipeline.Services p = Pipeline.Services.start(productStreams.toString(),
                Map.of("OBJECT_STORE_URI", "file:" + objects), resolver -> {
                    mode[0] = RestoreRunbook.resolve(requested, http, resolver.baseUrl());
                    WriteScenario.progress("restore: mode %s (asked: %s)", mode[0].label, requested);
                    setUp.put("seeding", StreamsScenario.seed(shape, resolver, s.seedThreads));
                    WriteScenario.progress("restore: starting the product with PRODUCT_STREAMS=%s", productStreams);
                    launched[0] = System.nanoTime();
                })) {
            String resolverUrl = p.writer.baseUrl();
            String productUrl = p.receiver.baseUrl();
            out.put("mode", mode[0].label);
            double productStart = seconds(System.nanoTime() - launched[0]);
            setUp.put("productStartSeconds", productStart);
            Map<String, Object> open = StreamsScenario.open(shape, p, http, readers, launched[0],
                    s.openTimeoutSeconds);
            setUp.put("open", open);
            if (((Number) open.get("notServed")).intValue() > 0) {
                throw new IllegalStateException(open.get("notServed") + " streams not served after the set-up: "
                        + open.get("notServedExamples"));
            }
            double setUpSeconds = ((Number) ((Map<?, ?>) setUp.get("seeding")).get("seconds")).doubleValue()
                    + ((Number) open.get("secondsFromLaunch")).doubleValue() - productStart;
            setUp.put("writeAndServeSeconds", Latencies.round(setUpSeconds));
            boolean fleetView = mode[0] == RestoreRunbook.Mode.FLEET
                    && RestoreRunbook.hasFleetCompleteness(http, productUrl);
            out.put("watch", fleetView ? "fleet" : "per-stream");

            WriteScenario.progress("restore: pg_dump of the resolver's database");
            long t = System.nanoTime();
            run(pgEnv(p.writerDb), "pg_dump", "--format=custom", "--file=" + dump, "--dbname=" + libpqUrl(p.writerDb));
            setUp.put("dump", Map.of("seconds", seconds(System.nanoTime() - t), "bytes", Files.size(dump)));
            setUp.put("lostTail", lostTail(p, http, affected, s, readers));
            out.put("setUp", setUp);
            double finishedBefore = rebuildsFinished(http, productUrl);
            String resolverLogBefore = p.writer.log().toString();

            WriteScenario.progress("restore: stopping the resolver, restoring the dump, starting it");
            Timestamp stoppedAt = databaseNow(p.receiverDb);
            Map<String, Object> restore = new LinkedHashMap<>();
            long[] restored = new long[1];
            p.restartResolver(() -> {
                long r0 = System.nanoTime();
                restore(p.writerDb, dump);
                restored[0] = System.nanoTime();
                restore.put("pgRestoreSeconds", seconds(restored[0] - r0));
            });
            long restoreDone = System.nanoTime();
            restore.put("resolverStartSeconds", seconds(restoreDone - restored[0]));
            restore.put("rolledBackStreams", rolledBack(http, resolverUrl));
            out.put("restore", restore);

            WriteScenario.progress("restore: the runbook, %s", mode[0].label);
            RestoreRunbook runbook = new RestoreRunbook(http, resolverUrl, productUrl);
            Map<String, Object> timeline = new LinkedHashMap<>();
            runbook.maintenanceOn();
            timeline.put("maintenanceOn", seconds(System.nanoTime() - restoreDone));
            long rotationStart = System.nanoTime();
            Map<String, Object> rotation = runbook.rotate(mode[0],
                    "restore bench: resolver database restored from pg_dump");
            long rotationEnd = System.nanoTime();
            timeline.put("rotated", seconds(rotationEnd - restoreDone));
            runbook.maintenanceOff();
            long maintenanceOff = System.nanoTime();
            Timestamp maintenanceOffAt = databaseNow(p.receiverDb);
            timeline.put("maintenanceOff", seconds(maintenanceOff - restoreDone));
            WriteScenario.progress("restore: maintenance off %.1f s after the restore (rotation %.1f s); watching",
                    seconds(maintenanceOff - restoreDone), seconds(rotationEnd - rotationStart));

            List<String> keptSample = spread(unaffected, s.sample);
            List<String> lostSample = spread(affected, s.lostSample);
            RestoreWatch watch = new RestoreWatch(http, productUrl, readers);
            RestoreWatch.Current current;
            Map<String, Object> atEnd = new LinkedHashMap<>();
            Map<String, Object> checksums;
            Map<String, String> sampleNotCurrent;
            RestoreWatch.Sampler kept = new RestoreWatch.Sampler(http, productUrl, keptSample, "item-0", "r0", 250,
                    true, keptPool).start(maintenanceOff);
            try (RestoreWatch.Sampler lost = new RestoreWatch.Sampler(http, productUrl, lostSample, "lost-1", null,
                    500, false, lostPool).start(maintenanceOff)) {
                long timeout = TimeUnit.SECONDS.toNanos(s.timeoutSeconds);
                current = fleetView ? watch.fleet(shape.streams(), NEW_EPOCH, timeout)
                        : watch.perStream(all, NEW_EPOCH, timeout);
                timeline.put("everyStreamCurrent", current.atNanos() < 0 ? null
                        : seconds(current.atNanos() - restoreDone));
                WriteScenario.progress("restore: %s", current.atNanos() < 0
                        ? current.notCurrent() + " streams not CURRENT at epoch " + NEW_EPOCH + " after the timeout"
                        : "every stream CURRENT at epoch " + NEW_EPOCH + ", RTO "
                                + seconds(current.atNanos() - restoreDone) + " s");
                kept.awaitAllServed(TimeUnit.SECONDS.toNanos(60));
                WriteScenario.progress("restore: checksums of %d affected and %d unaffected streams",
                        affected.size(), keptSample.size());
                List<String> compared = new ArrayList<>(affected);
                compared.addAll(keptSample);
                sampleNotCurrent = watch.notCurrent(compared, NEW_EPOCH);
                checksums = checksums(http, resolverUrl, productUrl, compared, readers);
                atEnd.put("lostItemsServed", countServed(http, productUrl, affected, "lost-1", null, readers));
                atEnd.put("keptItemsServed", countServed(http, productUrl, all, "item-0", "r0", readers));
                lost.close();
                out.put("lostSampling", lost.lostSummary());
                long lostServed = lost.served() + ((Number) atEnd.get("lostItemsServed")).longValue();
                out.put("lostItemsServedAfterMaintenanceOff", lostServed);
            } finally {
                kept.close();
            }
            Map<String, Object> rebuilds = rebuilds(p.receiverDb, stoppedAt, maintenanceOffAt, affectedSet);
            rebuilds.put("finishedMetricDelta", Latencies.round(rebuildsFinished(http, productUrl) - finishedBefore));
            long rto = current.atNanos() - restoreDone;

            // headline figures first, then the detail
            Map<String, Object> head = new LinkedHashMap<>();
            head.put("operatorCalls", runbook.totalCalls());
            head.put("operatorCallsByKind", runbook.calls());
            head.put("rotationSeconds", seconds(rotationEnd - rotationStart));
            head.put("rtoSeconds", current.atNanos() < 0 ? null : seconds(rto));
            head.put("everyStreamCurrent", current.atNanos() >= 0);
            head.put("unaffectedKeptServed", kept.keptSummary());
            head.put("rebuildsRun", rebuilds.get("run"));
            head.put("lostItemsServedAfterMaintenanceOff", out.remove("lostItemsServedAfterMaintenanceOff"));
            head.put("checksumsEqual", checksums.get("unequal").equals(0) && checksums.get("failedReads").equals(0));
            Map<String, Object> ratios = new LinkedHashMap<>();
            ratios.put("rtoToSetUp", current.atNanos() < 0 ? null : ratio(rto / 1e9, setUpSeconds));
            ratios.put("rebuildsToAffected", PropagationScenario.ratio(rebuilds.get("run"),
                    Math.max(1, affected.size())));
            head.put("ratios", ratios);
            Map<String, Object> result = new LinkedHashMap<>();
            for (String k : List.of("mode", "watch", "streams", "tenants", "productStreams", "lostFraction",
                    "affectedStreams", "loadAverageAtStart")) {
                result.put(k, out.remove(k));
            }
            result.putAll(head);
            result.putAll(out);
            Map<String, Object> runbookDetail = new LinkedHashMap<>();
            runbookDetail.put("timelineSecondsFromRestoreDone", timeline);
            runbookDetail.put("rotation", rotation);
            Map<String, Long> waits = new LinkedHashMap<>(runbook.waitReads());
            waits.put("completeness", current.reads());
            runbookDetail.put("waitReads", waits);
            result.put("runbook", runbookDetail);
            Map<String, Object> watched = new LinkedHashMap<>();
            watched.put("notCurrentAtEnd", current.notCurrent());
            watched.put("last", current.last());
            // after the watch ended: the checksum sample's completeness, stream by stream
            watched.put("sampleChecked", affected.size() + keptSample.size());
            watched.put("sampleNotCurrent", sampleNotCurrent.size());
            watched.put("sampleNotCurrentExamples", sampleNotCurrent.entrySet().stream().limit(5)
                    .map(e -> e.getKey() + " " + e.getValue()).toList());
            result.put("completeness", watched);
            result.put("rebuilds", rebuilds);
            result.put("checksums", checksums);
            result.put("atEnd", atEnd);
            Map<String, Object> logs = StreamsScenario.logs(p);
            logs.put("resolverBeforeRestore", resolverLogBefore);
            result.put("serviceLogs", logs);
            result.put("ok", ok(result, affected.size(), shape.streams(), atEnd));
            result.put("loadAverageAtEnd", ProcessCpu.loadAverage());
            return result;
        } finally {
            readers.shutdownNow();
            keptPool.shutdownNow();
            lostPool.shutdownNow();
            Files.deleteIfExists(dump);
        }
    }

    /**
     * Every correctness check held: all CURRENT (and the sample, read stream by stream), no lost item served,
     * checksums equal, every kept item served, the affected streams and only they refused as rolled back.
     */
    private static boolean ok(Map<String, Object> r, int affected, int streams, Map<String, Object> atEnd) {
        Map<?, ?> restore = (Map<?, ?>) r.get("restore");
        Map<?, ?> completeness = (Map<?, ?>) r.get("completeness");
        return Boolean.TRUE.equals(r.get("everyStreamCurrent"))
                && ((Number) completeness.get("sampleNotCurrent")).intValue() == 0
                && ((Number) r.get("lostItemsServedAfterMaintenanceOff")).longValue() == 0
                && Boolean.TRUE.equals(r.get("checksumsEqual"))
                && ((Number) atEnd.get("keptItemsServed")).intValue() == streams
                && ((Number) restore.get("rolledBackStreams")).intValue() == affected;
    }

    /** {@code fraction} of the streams, at least one when above 0, spread evenly over them. */
    static List<String> affected(List<String> all, double fraction) {
        int n = fraction <= 0 ? 0 : (int) Math.max(1, Math.round(all.size() * fraction));
        return spread(all, n);
    }

    /** {@code n} of {@code from}, spread evenly (all of them when n is at least their number). */
    static List<String> spread(List<String> from, int n) {
        if (n >= from.size()) {
            return List.copyOf(from);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(from.get((int) ((long) i * from.size() / n)));
        }
        return out;
    }

    /**
     * The lost tail: one transaction ({@code lost-1} and its PUBLIC release r1) per affected stream from the seed
     * threads; then until the product's serving generations applied it and {@code lost-1} is served (the lost
     * sample read publicly), and until the control store recorded each affected stream's new head as its
     * high-water mark (recorded asynchronously: a restore landing after the last recorded mark is a case of its
     * own, see docs/runbooks/restore.md, not this scenario's).
     */
    private static Map<String, Object> lostTail(Pipeline.Services p, HttpClient http, List<String> affected,
            Settings s, ExecutorService readers) throws Exception {
        WriteScenario.progress("restore: the lost tail on %d streams", affected.size());
        Map<String, Object> m = new LinkedHashMap<>();
        long start = System.nanoTime();
        ExecutorService writers = Executors.newFixedThreadPool(s.seedThreads);
        try {
            List<Callable<Void>> writes = new ArrayList<>();
            for (String path : affected) {
                String url = p.writer.baseUrl() + "/v1/streams/" + path + "/transactions";
                writes.add(() -> {
                    PropagationScenario.sendKeepAlive("POST", url, LOST_BODY);
                    return null;
                });
            }
            for (Future<Void> f : writers.invokeAll(writes)) {
                f.get();
            }
        } finally {
            writers.shutdownNow();
        }
        m.put("writeSeconds", seconds(System.nanoTime() - start));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.openTimeoutSeconds);
        Set<String> pending = new HashSet<>(affected);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            servingGenerations(p.receiverDb, LOST_HEAD).forEach(pending::remove);
            if (!pending.isEmpty()) {
                Thread.sleep(250);
            }
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException(pending.size() + " streams did not apply the lost tail: "
                    + pending.stream().sorted().limit(10).toList());
        }
        List<String> sample = spread(affected, s.lostSample);
        long served = 0;
        while (served < sample.size() && System.nanoTime() < deadline) {
            served = ((Number) countServed(http, p.receiver.baseUrl(), sample, "lost-1", null, readers)).longValue();
            if (served < sample.size()) {
                Thread.sleep(250);
            }
        }
        m.put("appliedAndServedSeconds", seconds(System.nanoTime() - start));
        m.put("lostItemsServedBeforeRestore", served + " of " + sample.size() + " sampled");
        long marks = 0;
        long marksDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Connection c = p.controlDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM control.stream_high_water_mark WHERE epoch = 1 AND position >= ?""")) {
            ps.setLong(1, LOST_HEAD);
            while (System.nanoTime() < marksDeadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    marks = rs.getLong(1);
                }
                if (marks >= affected.size()) {
                    break;
                }
                Thread.sleep(200);
            }
        }
        m.put("highWaterMarksRecorded", marks);
        m.put("seconds", seconds(System.nanoTime() - start));
        return m;
    }

    /** The streams whose serving generation applied at least {@code position}. */
    private static List<String> servingGenerations(TestDatabase productDb, long position) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = productDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT s.tenant || '/' || s.catalog FROM product.serving_generation s
                  JOIN product.generation g ON g.generation_id = s.generation_id
                 WHERE g.applied_position >= ?""")) {
            ps.setLong(1, position);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * The product's rebuilds created since the resolver was stopped ({@code product.rebuild}: the product has no
     * endpoint listing them), by final phase, before and after its maintenance-off, for affected and unaffected
     * streams.
     */
    private static Map<String, Object> rebuilds(TestDatabase productDb, Timestamp since, Timestamp maintenanceOff,
            Set<String> affected) throws Exception {
        long run = 0;
        long beforeOff = 0;
        Map<String, Long> byPhase = new TreeMap<>();
        Set<String> streams = new HashSet<>();
        long onAffected = 0;
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
                    onAffected += affected.contains(rs.getString(1)) ? 1 : 0;
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", run);
        m.put("byPhase", byPhase);
        m.put("streams", streams.size());
        m.put("ofAffectedStreams", onAffected);
        m.put("ofUnaffectedStreams", run - onAffected);
        m.put("beforeMaintenanceOff", beforeOff);
        return m;
    }

    /** The product's {@code product_rebuilds_finished_total} summed over its outcomes (Prometheus scrape). */
    private static double rebuildsFinished(HttpClient http, String productUrl) throws Exception {
        String text = Pipeline.send(http, "GET", productUrl + "/actuator/prometheus", null, null);
        return text.lines().filter(l -> l.startsWith("product_rebuilds_finished_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** The resolver's streams listed as rolled back ({@code GET /v1/streams?rolledBack=true}, every page). */
    private static long rolledBack(HttpClient http, String resolverUrl) throws Exception {
        long n = 0;
        String after = null;
        do {
            String body = Pipeline.send(http, "GET", resolverUrl + "/v1/streams?rolledBack=true&limit=5000"
                    + (after == null ? "" : "&after=" + after), "op", null);
            JsonNode page = JSON.readTree(body);
            n += page.path("streams").size();
            after = page.path("next").isString() ? page.path("next").asString() : null;
        } while (after != null);
        return n;
    }

    /**
     * Resolver {@code state-checksum} against product {@code projection-checksum} ({@code epoch}, {@code position},
     * {@code tables}) under both profiles, each at epoch 2; a stream that differs is compared again every 2 s for
     * 30 s (the product may still be applying when it turned CURRENT).
     */
    private static Map<String, Object> checksums(HttpClient http, String resolverUrl, String productUrl,
            List<String> streams, ExecutorService readers) throws Exception {
        Map<String, String> differing = compare(http, resolverUrl, productUrl, streams, readers);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!differing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(2000);
            differing = compare(http, resolverUrl, productUrl, new ArrayList<>(differing.keySet()), readers);
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
    private static Map<String, String> compare(HttpClient http, String resolverUrl, String productUrl,
            List<String> streams, ExecutorService readers) throws Exception {
        List<Callable<String>> reads = new ArrayList<>();
        for (String path : streams) {
            reads.add(() -> {
                for (String profile : PROFILES) {
                    HttpResponse<String> a = Pipeline.call(http, "GET", resolverUrl + "/v1/streams/" + path
                            + "/state-checksum?profile=" + profile, "op", null);
                    HttpResponse<String> b = Pipeline.call(http, "GET", productUrl + "/v1/streams/" + path
                            + "/projection-checksum?profile=" + profile, "op", null);
                    if (a.statusCode() != 200 || b.statusCode() != 200) {
                        return "HTTP " + a.statusCode() + " / " + b.statusCode() + " (" + profile + ")";
                    }
                    JsonNode x = JSON.readTree(a.body());
                    JsonNode y = JSON.readTree(b.body());
                    if (x.path("epoch").asLong() != NEW_EPOCH || !x.path("epoch").equals(y.path("epoch"))
                            || !x.path("position").equals(y.path("position"))
                            || !x.path("tables").equals(y.path("tables"))) {
                        return profile + ": resolver " + a.body() + " product " + b.body();
                    }
                }
                return null;
            });
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

    /** How many of {@code streams} answer 200 for {@code item} (naming {@code releaseId}, unless null). */
    private static Object countServed(HttpClient http, String productUrl, List<String> streams, String item,
            String releaseId, ExecutorService readers) throws Exception {
        AtomicLong served = new AtomicLong();
        List<Callable<Void>> reads = new ArrayList<>();
        for (String path : streams) {
            reads.add(() -> {
                HttpResponse<String> res = Pipeline.call(http, "GET", productUrl + "/v1/catalog/" + path + "/items/"
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

    /** The database's clock (the product's rebuild rows are stamped by it). */
    private static Timestamp databaseNow(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    /** The runbook's restore: an empty database of the same name, then pg_restore of the dump into it. */
    private static void restore(TestDatabase db, Path dump) throws Exception {
        String url = libpqUrl(db);
        String admin = url.substring(0, url.lastIndexOf('/')) + "/postgres";
        Map<String, String> env = pgEnv(db);
        run(env, "psql", "--no-psqlrc", "-q", "-v", "ON_ERROR_STOP=1", "--dbname=" + admin, "-c",
                "DROP DATABASE " + db.name() + " WITH (FORCE)");
        run(env, "psql", "--no-psqlrc", "-q", "-v", "ON_ERROR_STOP=1", "--dbname=" + admin, "-c",
                "CREATE DATABASE " + db.name());
        run(env, "pg_restore", "--exit-on-error", "--no-owner", "--dbname=" + url, dump.toString());
    }

    /** {@code postgresql://user@host:port/name} for the PostgreSQL tools. */
    private static String libpqUrl(TestDatabase db) {
        String hostPortName = db.jdbcUrl().substring("jdbc:postgresql://".length());
        int q = hostPortName.indexOf('?');
        return "postgresql://" + db.username() + "@" + (q < 0 ? hostPortName : hostPortName.substring(0, q));
    }

    private static Map<String, String> pgEnv(TestDatabase db) {
        Map<String, String> env = new HashMap<>();
        env.put("PGCONNECT_TIMEOUT", "10");
        if (db.password() != null) {
            env.put("PGPASSWORD", db.password());
        }
        return env;
    }

    /** Runs one PostgreSQL tool; fails with its output unless it exits 0 within an hour. */
    private static void run(Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process proc = pb.start();
        String output = new String(proc.getInputStream().readAllBytes());
        if (!proc.waitFor(3600, TimeUnit.SECONDS) || proc.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }
}
