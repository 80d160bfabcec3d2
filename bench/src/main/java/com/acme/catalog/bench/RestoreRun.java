package com.acme.catalog.bench;

import java.net.http.HttpClient;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.bench.StreamsScenario.Shape;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * One restore on fresh services, the steps of {@link RestoreScenario} in order, one method each:
 * <ol>
 * <li>{@link #setUp}: services, N streams seeded, the product serving every one;</li>
 * <li>{@link #backUp}: pg_dump of the resolver's database;</li>
 * <li>{@link #loseTail}: the lost tail on the affected streams, applied, served and recorded as high-water marks;</li>
 * <li>{@link #restore}: the resolver stopped, the dump restored, the resolver started ("restore done");</li>
 * <li>{@link #followRunbook}: maintenance on, the rotation, maintenance off ({@link RestoreRunbook});</li>
 * <li>{@link #watch}: until every stream is CURRENT at the new epoch, sampling kept and lost items meanwhile;</li>
 * <li>{@link #verify}: checksums, completeness of the sample, public reads of every stream, rebuilds.</li>
 * </ol>
 * {@link #result} puts the headline figures first.
 */
final class RestoreRun implements AutoCloseable {

    /** Every stream starts in epoch 1; the rotation after the restore moves each to 2. */
    private static final long NEW_EPOCH = 2;
    /** The lost tail's transaction: the positions after the seed's item (1) and release (2). */
    private static final long LOST_HEAD = 4;
    private static final String LOST_BODY = "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"lost-1\","
            + "\"attributes\":{\"name\":\"lost 1\",\"n\":1}},{\"op\":\"putRelease\",\"releaseId\":\"r1\","
            + "\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"lost-1\",\"revision\":1}]}]}";
    private static final String REASON = "restore bench: resolver database restored from pg_dump";

    private final RestoreScenario.Settings s;
    private final HttpClient http;
    private final Shape shape;
    private final List<String> all = new ArrayList<>();
    private final List<String> affected;
    private final Set<String> affectedSet;
    private final List<String> keptSample;
    private final List<String> lostSample;
    private final String productStreams;
    private final Path objects;
    private final Path dump;
    private final ExecutorService readers;
    private final ExecutorService keptPool;
    private final ExecutorService lostPool;
    private final Map<String, Object> setUp = new LinkedHashMap<>();
    private final Map<String, Object> restored = new LinkedHashMap<>();
    private final Map<String, Object> timeline = new LinkedHashMap<>();
    private final Map<String, Object> verified = new LinkedHashMap<>();
    private final String loadAtStart = ProcessCpu.loadAverage();

    private Pipeline.Services p;
    private RestoreChecks checks;
    private RestoreRunbook runbook;
    private RestoreRunbook.Mode mode;
    private boolean fleetView;
    private double setUpSeconds;
    private double rebuildsFinishedBefore;
    private String resolverLogBefore;
    private Timestamp stoppedAt;
    private Timestamp maintenanceOffAt;
    private long restoreDone;
    private long rotationNanos;
    private long maintenanceOff;
    private Map<String, Object> rotation;
    private RestoreWatch.Current current;
    private RestoreWatch.Sampler kept;
    private RestoreWatch.Sampler lost;

    private RestoreRun(RestoreScenario.Settings s, HttpClient http) throws Exception {
        this.s = s;
        this.http = http;
        this.shape = new Shape(s.streams(), 1, s.tenants());
        for (int i = 0; i < shape.streams(); i++) {
            all.add(shape.path(i));
        }
        this.affected = RestoreScenario.affected(all, s.lost());
        this.affectedSet = new HashSet<>(affected);
        List<String> unaffected = all.stream().filter(x -> !affectedSet.contains(x)).toList();
        this.keptSample = RestoreScenario.spread(unaffected, s.sample());
        this.lostSample = RestoreScenario.spread(affected, s.lostSample());
        StringBuilder subscribed = new StringBuilder();
        for (int t = 0; t < shape.tenants(); t++) {
            subscribed.append(t == 0 ? "" : ",").append("t").append(t).append("/*");
        }
        this.productStreams = subscribed.toString();
        this.objects = Files.createTempDirectory("bench-restore-objects-");
        this.dump = Files.createTempFile("bench-restore-resolver-", ".dump");
        this.readers = Executors.newFixedThreadPool(s.readers());
        this.keptPool = Executors.newFixedThreadPool(4);
        this.lostPool = Executors.newFixedThreadPool(4);
    }

    /** One restore with the rotation as {@code requested} (per-stream, fleet or auto): the JSON line's members. */
    static Map<String, Object> run(String requested, RestoreScenario.Settings s, HttpClient http) throws Exception {
        try (RestoreRun r = new RestoreRun(s, http)) {
            r.setUp(requested);
            r.backUp();
            r.loseTail();
            r.restore();
            r.followRunbook();
            r.watch();
            r.verify();
            return r.result();
        }
    }

    /**
     * Both services from their jars on fresh databases; the mode decided from the resolver's OpenAPI document
     * before anything is written; N streams seeded ({@link StreamsScenario#seed}) before the product starts with
     * {@code PRODUCT_STREAMS=t0/*,…}; until every stream serves item-0 ({@link StreamsScenario#open}).
     */
    private void setUp(String requested) throws Exception {
        long[] launched = new long[1];
        p = Pipeline.Services.start(productStreams, Map.of("OBJECT_STORE_URI", "file:" + objects), resolver -> {
            mode = RestoreRunbook.resolve(requested, http, resolver.baseUrl());
            WriteScenario.progress("restore: mode %s (asked: %s)", mode.label, requested);
            setUp.put("seeding", StreamsScenario.seed(shape, resolver, s.seedThreads()));
            WriteScenario.progress("restore: starting the product with PRODUCT_STREAMS=%s", productStreams);
            launched[0] = System.nanoTime();
        });
        double productStart = seconds(System.nanoTime() - launched[0]);
        setUp.put("productStartSeconds", productStart);
        Map<String, Object> open = StreamsScenario.open(shape, p, http, readers, launched[0],
                s.openTimeoutSeconds());
        setUp.put("open", open);
        if (((Number) open.get("notServed")).intValue() > 0) {
            throw new IllegalStateException(open.get("notServed") + " streams not served after the set-up: "
                    + open.get("notServedExamples"));
        }
        setUpSeconds = ((Number) ((Map<?, ?>) setUp.get("seeding")).get("seconds")).doubleValue()
                + ((Number) open.get("secondsFromLaunch")).doubleValue() - productStart;
        setUp.put("writeAndServeSeconds", Latencies.round(setUpSeconds));
        checks = new RestoreChecks(http, p.writer.baseUrl(), p.receiver.baseUrl(), readers);
        fleetView = mode == RestoreRunbook.Mode.FLEET && RestoreRunbook.hasFleetCompleteness(http,
                p.receiver.baseUrl());
    }

    /** {@code pg_dump --format=custom} of the resolver's database. */
    private void backUp() throws Exception {
        WriteScenario.progress("restore: pg_dump of the resolver's database");
        long t = System.nanoTime();
        PostgresTools.run(PostgresTools.env(p.writerDb), "pg_dump", "--format=custom", "--file=" + dump,
                "--dbname=" + PostgresTools.url(p.writerDb));
        setUp.put("dump", Map.of("seconds", seconds(System.nanoTime() - t), "bytes", Files.size(dump)));
    }

    /**
     * One transaction ({@code lost-1} and its PUBLIC release r1) per affected stream from the seed threads; then
     * until the product's serving generations applied it and the lost sample serves {@code lost-1} publicly, and
     * until the control store recorded each affected stream's new head as its high-water mark (recorded
     * asynchronously: a restore landing after the last recorded mark is a case of its own, see
     * docs/runbooks/restore.md, not this scenario's).
     */
    private void loseTail() throws Exception {
        WriteScenario.progress("restore: the lost tail on %d streams", affected.size());
        Map<String, Object> m = new LinkedHashMap<>();
        long start = System.nanoTime();
        ExecutorService writers = Executors.newFixedThreadPool(s.seedThreads());
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
        awaitApplied(System.nanoTime() + TimeUnit.SECONDS.toNanos(s.openTimeoutSeconds()));
        m.put("appliedAndServedSeconds", seconds(System.nanoTime() - start));
        m.put("lostItemsServedBeforeRestore", checks.served(lostSample, "lost-1", null) + " of "
                + lostSample.size() + " sampled");
        m.put("highWaterMarksRecorded", awaitHighWaterMarks(System.nanoTime() + TimeUnit.SECONDS.toNanos(60)));
        m.put("seconds", seconds(System.nanoTime() - start));
        setUp.put("lostTail", m);
    }

    /** Until every affected stream's serving generation applied the lost tail and the sample serves it. */
    private void awaitApplied(long deadline) throws Exception {
        Set<String> pending = new HashSet<>(affected);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            appliedThrough(LOST_HEAD).forEach(pending::remove);
            if (!pending.isEmpty()) {
                Thread.sleep(250);
            }
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException(pending.size() + " streams did not apply the lost tail: "
                    + pending.stream().sorted().limit(10).toList());
        }
        while (checks.served(lostSample, "lost-1", null) < lostSample.size() && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
    }

    /** The streams whose serving generation applied at least {@code position} (the product's tables). */
    private List<String> appliedThrough(long position) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = p.receiverDb.connect(); PreparedStatement ps = c.prepareStatement("""
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

    /** Epoch-1 high-water marks at the lost tail's head in the control store, polled until all or the deadline. */
    private long awaitHighWaterMarks(long deadline) throws Exception {
        long marks = 0;
        try (Connection c = p.controlDb.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM control.stream_high_water_mark WHERE epoch = 1 AND position >= ?""")) {
            ps.setLong(1, LOST_HEAD);
            while (System.nanoTime() < deadline) {
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
        return marks;
    }

    /**
     * The resolver stopped; {@code DROP DATABASE … WITH (FORCE)}, {@code CREATE DATABASE} and {@code pg_restore}
     * as the runbook has them; the resolver started on it. Restore done: the resolver healthy again.
     */
    private void restore() throws Exception {
        WriteScenario.progress("restore: stopping the resolver, restoring the dump, starting it");
        rebuildsFinishedBefore = checks.rebuildsFinished();
        resolverLogBefore = p.writer.log().toString();
        stoppedAt = databaseNow(p.receiverDb);
        long[] pgRestored = new long[1];
        p.restartResolver(() -> {
            long t = System.nanoTime();
            PostgresTools.restore(p.writerDb, dump);
            pgRestored[0] = System.nanoTime();
            restored.put("pgRestoreSeconds", seconds(pgRestored[0] - t));
        });
        restoreDone = System.nanoTime();
        restored.put("resolverStartSeconds", seconds(restoreDone - pgRestored[0]));
        // the resolver's check at start may still be marking streams: a reading, not a condition
        restored.put("rolledBackStreamsAtRestoreDone", checks.rolledBack());
    }

    /** Maintenance on (product, resolver), the rotation, maintenance off (resolver, product). */
    private void followRunbook() throws Exception {
        WriteScenario.progress("restore: the runbook, %s", mode.label);
        runbook = new RestoreRunbook(http, p.writer.baseUrl(), p.receiver.baseUrl());
        runbook.maintenanceOn();
        timeline.put("maintenanceOn", seconds(System.nanoTime() - restoreDone));
        long rotationStart = System.nanoTime();
        rotation = runbook.rotate(mode, REASON);
        rotationNanos = System.nanoTime() - rotationStart;
        timeline.put("rotated", seconds(System.nanoTime() - restoreDone));
        runbook.maintenanceOff();
        maintenanceOff = System.nanoTime();
        maintenanceOffAt = databaseNow(p.receiverDb);
        timeline.put("maintenanceOff", seconds(maintenanceOff - restoreDone));
        WriteScenario.progress("restore: maintenance off %.1f s after the restore (rotation %.1f s); watching",
                seconds(maintenanceOff - restoreDone), seconds(rotationNanos));
    }

    /**
     * From the product's maintenance-off: the kept items of the unaffected sample every 0.25 s until each serves
     * r0, the lost items of the lost sample every 0.5 s until the end of {@link #verify}, and the watch until
     * every stream is CURRENT at the new epoch (the fleet view, or each stream's completeness).
     */
    private void watch() throws Exception {
        String productUrl = p.receiver.baseUrl();
        kept = new RestoreWatch.Sampler(http, productUrl, keptSample, "item-0", "r0", 250, true, keptPool)
                .start(maintenanceOff);
        lost = new RestoreWatch.Sampler(http, productUrl, lostSample, "lost-1", null, 500, false, lostPool)
                .start(maintenanceOff);
        RestoreWatch watch = new RestoreWatch(http, productUrl, readers);
        long timeout = TimeUnit.SECONDS.toNanos(s.timeoutSeconds());
        current = fleetView ? watch.fleet(shape.streams(), NEW_EPOCH, timeout)
                : watch.perStream(all, NEW_EPOCH, timeout);
        timeline.put("everyStreamCurrent", current.atNanos() < 0 ? null : seconds(current.atNanos() - restoreDone));
        WriteScenario.progress("restore: %s", current.atNanos() < 0
                ? current.notCurrent() + " streams not CURRENT at epoch " + NEW_EPOCH + " after the timeout"
                : "every stream CURRENT at epoch " + NEW_EPOCH + ", RTO " + seconds(current.atNanos() - restoreDone)
                        + " s");
        kept.awaitAllServed(TimeUnit.SECONDS.toNanos(60));
    }

    /**
     * The sample's completeness stream by stream and its checksums (every affected stream and the kept sample);
     * lost-1 of every affected stream and item-0 of every stream read publicly; then the lost sampler stopped and
     * the product's rebuilds counted.
     */
    private void verify() throws Exception {
        WriteScenario.progress("restore: checksums of %d affected and %d unaffected streams", affected.size(),
                keptSample.size());
        List<String> sample = new ArrayList<>(affected);
        sample.addAll(keptSample);
        Map<String, String> notCurrent = new RestoreWatch(http, p.receiver.baseUrl(), readers)
                .notCurrent(sample, NEW_EPOCH);
        verified.put("sampleChecked", sample.size());
        verified.put("sampleNotCurrent", notCurrent.size());
        verified.put("sampleNotCurrentExamples", notCurrent.entrySet().stream().limit(5)
                .map(e -> e.getKey() + " " + e.getValue()).toList());
        verified.put("checksums", checks.checksums(sample, NEW_EPOCH));
        verified.put("lostItemsServedAtEnd", checks.served(affected, "lost-1", null));
        verified.put("keptItemsServedAtEnd", checks.served(all, "item-0", "r0"));
        lost.close();
        Map<String, Object> rebuilds = RestoreChecks.rebuilds(p.receiverDb, stoppedAt, maintenanceOffAt,
                affectedSet);
        rebuilds.put("finishedMetricDelta", Latencies.round(checks.rebuildsFinished() - rebuildsFinishedBefore));
        verified.put("rebuilds", rebuilds);
    }

    /** The JSON line's members: what was run, the headline figures, the ratios, then the detail. */
    private Map<String, Object> result() throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("mode", mode.label);
        r.put("watch", fleetView ? "fleet" : "per-stream");
        r.put("streams", shape.streams());
        r.put("tenants", shape.tenants());
        r.put("productStreams", productStreams);
        r.put("lostFraction", s.lost());
        r.put("affectedStreams", affected.size());
        r.put("loadAverageAtStart", loadAtStart);
        boolean allCurrent = current.atNanos() >= 0;
        double rto = allCurrent ? seconds(current.atNanos() - restoreDone) : -1;
        Map<String, Object> rebuilds = cast(verified.get("rebuilds"));
        Map<String, Object> checksums = cast(verified.get("checksums"));
        long lostServed = lost.served() + ((Number) verified.get("lostItemsServedAtEnd")).longValue();
        r.put("operatorCalls", runbook.totalCalls());
        r.put("operatorCallsByKind", runbook.calls());
        r.put("rotationSeconds", seconds(rotationNanos));
        r.put("rtoSeconds", allCurrent ? rto : null);
        r.put("everyStreamCurrent", allCurrent);
        r.put("unaffectedKeptServed", kept.keptSummary());
        r.put("rebuildsRun", rebuilds.get("run"));
        r.put("lostItemsServedAfterMaintenanceOff", lostServed);
        r.put("checksumsEqual", checksums.get("unequal").equals(0) && checksums.get("failedReads").equals(0));
        Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("rtoToSetUp", allCurrent ? RestoreScenario.ratio(rto, setUpSeconds) : null);
        ratios.put("rebuildsToAffected", RestoreScenario.ratio(rebuilds.get("run"), Math.max(1, affected.size())));
        r.put("ratios", ratios);
        r.put("setUp", setUp);
        r.put("restore", restored);
        Map<String, Object> runbookDetail = new LinkedHashMap<>();
        runbookDetail.put("timelineSecondsFromRestoreDone", timeline);
        runbookDetail.put("rotation", rotation);
        Map<String, Long> waits = new LinkedHashMap<>(runbook.waitReads());
        waits.put("completeness", current.reads());
        runbookDetail.put("waitReads", waits);
        r.put("runbook", runbookDetail);
        r.put("lostSampling", lost.lostSummary());
        Map<String, Object> completeness = new LinkedHashMap<>();
        completeness.put("notCurrentAtEnd", current.notCurrent());
        completeness.put("last", current.last());
        completeness.put("sampleChecked", verified.get("sampleChecked"));
        completeness.put("sampleNotCurrent", verified.get("sampleNotCurrent"));
        completeness.put("sampleNotCurrentExamples", verified.get("sampleNotCurrentExamples"));
        r.put("completeness", completeness);
        r.put("rebuilds", rebuilds);
        r.put("checksums", checksums);
        r.put("atEnd", Map.of("lostItemsServed", verified.get("lostItemsServedAtEnd"),
                "keptItemsServed", verified.get("keptItemsServedAtEnd")));
        Map<String, Object> logs = StreamsScenario.logs(p);
        logs.put("resolverBeforeRestore", resolverLogBefore);
        r.put("serviceLogs", logs);
        r.put("ok", allCurrent && ((Number) verified.get("sampleNotCurrent")).intValue() == 0 && lostServed == 0
                && Boolean.TRUE.equals(r.get("checksumsEqual"))
                && ((Number) verified.get("keptItemsServedAtEnd")).longValue() == shape.streams()
                && ((Number) cast(setUp.get("lostTail")).get("highWaterMarksRecorded")).longValue()
                        >= affected.size());
        r.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        return r;
    }

    @Override
    public void close() throws Exception {
        try {
            for (RestoreWatch.Sampler sampler : new RestoreWatch.Sampler[] {kept, lost}) {
                if (sampler != null) {
                    sampler.close();
                }
            }
            if (p != null) {
                p.close();
            }
        } finally {
            readers.shutdownNow();
            keptPool.shutdownNow();
            lostPool.shutdownNow();
            Files.deleteIfExists(dump);
        }
    }

    /** The database's clock (the product's rebuild rows are stamped by it). */
    private static Timestamp databaseNow(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object map) {
        return (Map<String, Object>) map;
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }

    /** PostgreSQL's own tools, as the runbook runs them. */
    static final class PostgresTools {

        private PostgresTools() {
        }

        /** An empty database of the same name, then pg_restore of the dump into it. */
        static void restore(TestDatabase db, Path dump) throws Exception {
            String url = url(db);
            String admin = url.substring(0, url.lastIndexOf('/')) + "/postgres";
            Map<String, String> env = env(db);
            run(env, "psql", "--no-psqlrc", "-q", "-v", "ON_ERROR_STOP=1", "--dbname=" + admin, "-c",
                    "DROP DATABASE " + db.name() + " WITH (FORCE)");
            run(env, "psql", "--no-psqlrc", "-q", "-v", "ON_ERROR_STOP=1", "--dbname=" + admin, "-c",
                    "CREATE DATABASE " + db.name());
            run(env, "pg_restore", "--exit-on-error", "--no-owner", "--dbname=" + url, dump.toString());
        }

        /** {@code postgresql://user@host:port/name} for the tools. */
        static String url(TestDatabase db) {
            String hostPortName = db.jdbcUrl().substring("jdbc:postgresql://".length());
            int q = hostPortName.indexOf('?');
            return "postgresql://" + db.username() + "@" + (q < 0 ? hostPortName : hostPortName.substring(0, q));
        }

        static Map<String, String> env(TestDatabase db) {
            Map<String, String> env = new HashMap<>();
            env.put("PGCONNECT_TIMEOUT", "10");
            if (db.password() != null) {
                env.put("PGPASSWORD", db.password());
            }
            return env;
        }

        /** Runs one tool; fails with its output unless it exits 0 within an hour. */
        static void run(Map<String, String> env, String... command) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            Process proc = pb.start();
            String output = new String(proc.getInputStream().readAllBytes());
            if (!proc.waitFor(3600, TimeUnit.SECONDS) || proc.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        }
    }
}
