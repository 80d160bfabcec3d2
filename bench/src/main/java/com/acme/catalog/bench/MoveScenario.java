package com.acme.catalog.bench;

import java.io.BufferedWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Moving one stream of N items (and their PUBLIC releases, 1,000 items each) from one resolver database to another
 * with {@code bin/move-stream.sh}, as an operator runs it, against the steps a move is made of run by hand in the
 * same run: the baseline is an export of the stream at the source (lease, {@code POST /v1/exports}, polled until
 * READY), {@code --convert-snapshot} of it (a child process, as the script starts it) and the REST import of the
 * conversion into an empty stream of another resolver database, each timed apart. Then the move itself end to end
 * (fence, export, convert, import at the target in an epoch above the source's, verify, retire), timed as the
 * script's process, with its own phases reported beside. An untimed export first warms the source resolver, so the
 * baseline's export and the move's are both made by a warm JVM.
 * <p>
 * Throughout the move a writer tries one item write a {@value #WRITE_INTERVAL_MS} ms at the source: accepted before
 * the fence, 409 {@code STREAM_MOVING} while the stream moves, 410 {@code STREAM_MOVED} naming the target once it
 * is retired. The refused window is the first refused write to the last {@code STREAM_MOVING} one; it must lie
 * within the move, no write may be accepted after the first refusal, and writes after the script ended must answer
 * 410 with the target's URL. The target's accepted-state-v1 and public-view-v1 checksums are compared with the
 * source's (which hold the writer's accepted writes). Target: the move within 2x the baseline, writes refused at most
 * that long.
 */
final class MoveScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final long WRITE_INTERVAL_MS = 100;
    private static final String TENANT = "bench";
    private static final String CATALOG = "moved";
    private static final String TOKENS = "op=operator;w=writer";
    private static final String PATH = "/v1/streams/" + TENANT + "/" + CATALOG;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Override
    public String name() {
        return "move";
    }

    @Override
    public String description() {
        return "bin/move-stream.sh of one stream vs its export + convert + import, writes refused meanwhile "
                + "[--items=100000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int items = o.integer("items", 100_000);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("releases", (items + ConvertScenario.RELEASE_ITEMS - 1) / ConvertScenario.RELEASE_ITEMS);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("target", "moveSeconds <= 2 x baselineSeconds, writesRefusedSeconds <= 2 x baselineSeconds");
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        Path script = locateScript();
        Path jar = ServiceProcess.locate("resolver-service");
        Path dir = Files.createTempDirectory("bench-move-");
        Path objects = Files.createDirectories(dir.resolve("objects"));
        Path source = dir.resolve("source.json");
        ConvertScenario.writeSource(source, items);
        try (TestDatabase srcDb = TestDatabase.create("bench_move_source");
             TestDatabase srcControl = TestDatabase.create("bench_move_source_control")) {
            WriteScenario.progress("move: importing the source (%d items)", items);
            importFile(jar, srcDb, srcControl, source);
            try (ServiceProcess a = resolver(srcDb, srcControl, objects)) {
                long epoch = JSON.readTree(call(a.baseUrl(), "GET", PATH, "op", null).body()).path("epoch")
                        .longValue();
                WriteScenario.progress("move: warm-up export at the source");
                long w = System.nanoTime();
                export(a.baseUrl(), epoch);
                out.put("warmUpExportSeconds", seconds(System.nanoTime() - w));

                Map<String, Object> baseline = baseline(a, epoch, jar, objects, dir);
                double baselineSeconds = ((Number) baseline.get("seconds")).doubleValue();
                out.put("baselineSeconds", baselineSeconds);
                out.put("baselinePhases", baseline.get("phases"));
                out.put("baselineEvents", baseline.get("events"));

                try (TestDatabase dstDb = TestDatabase.create("bench_move_target");
                     TestDatabase dstControl = TestDatabase.create("bench_move_target_control");
                     ServiceProcess b = resolver(dstDb, dstControl, Files.createDirectories(dir.resolve("b")))) {
                    move(a, b, script, jar, objects, dir, baselineSeconds, out);
                }
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        out.put("loadAverageAtEnd", ProcessCpu.loadAverage());
        return out;
    }

    /**
     * Export at the source, conversion and import into an empty stream of a fresh resolver database: what a move
     * does without its fence, verification and retirement. The import is a plain one (no reset to an epoch above the
     * source's), the one an operator runs to bootstrap a database.
     */
    private Map<String, Object> baseline(ServiceProcess a, long epoch, Path jar, Path objects, Path dir)
            throws Exception {
        try (TestDatabase db = TestDatabase.create("bench_move_baseline");
             TestDatabase control = TestDatabase.create("bench_move_baseline_control");
             ServiceProcess b0 = resolver(db, control, Files.createDirectories(dir.resolve("b0")))) {
            WriteScenario.progress("move: baseline export at the source");
            long t0 = System.nanoTime();
            String manifestKey = export(a.baseUrl(), epoch);
            long t1 = System.nanoTime();
            WriteScenario.progress("move: baseline conversion of %s", manifestKey);
            Path events = dir.resolve("baseline-events.json");
            JsonNode converted = convert(jar, manifestKey, objects, events);
            long t2 = System.nanoTime();
            WriteScenario.progress("move: baseline import of %d events", converted.path("events").longValue());
            HttpResponse<String> imported = http.send(HttpRequest.newBuilder(URI.create(b0.baseUrl() + PATH
                    + "/bootstrap-import")).header("Authorization", "Bearer op")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofFile(events))
                    .build(), HttpResponse.BodyHandlers.ofString());
            long t3 = System.nanoTime();
            if (imported.statusCode() != 200) {
                throw new IllegalStateException("baseline import answered " + imported.statusCode() + ": "
                        + imported.body());
            }
            Map<String, Object> phases = new LinkedHashMap<>();
            phases.put("export", seconds(t1 - t0));
            phases.put("convert", seconds(t2 - t1));
            phases.put("import", seconds(t3 - t2));
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("seconds", seconds(t3 - t0));
            r.put("phases", phases);
            r.put("events", converted.path("events").longValue());
            return r;
        }
    }

    /** The script from A to B with the writer at A throughout; the move's members of the JSON line. */
    private void move(ServiceProcess a, ServiceProcess b, Path script, Path jar, Path objects, Path dir,
            double baselineSeconds, Map<String, Object> out) throws Exception {
        Writer writer = new Writer(a.baseUrl());
        Thread wt = new Thread(writer, "bench-move-writer");
        wt.start();
        Thread.sleep(1000); // a few writes accepted before the fence
        Path work = Files.createDirectories(dir.resolve("work"));
        Path log = dir.resolve("move.log");
        WriteScenario.progress("move: %s from %s to %s", script, a.baseUrl(), b.baseUrl());
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "--tenant", TENANT, "--catalog", CATALOG,
                "--from", a.baseUrl(), "--to", b.baseUrl(), "--token", "op", "--object-store", "file:" + objects,
                "--work", work.toString(), "--jar", jar.toString()).redirectError(log.toFile());
        long start = System.nanoTime();
        Process p = pb.start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean exited = p.waitFor(2, TimeUnit.HOURS);
        long end = System.nanoTime();
        Thread.sleep(1500); // writes after the move answer 410
        writer.stop.set(true);
        wt.join();
        if (!exited || p.exitValue() != 0) {
            throw new IllegalStateException("move-stream.sh " + (exited ? "exited " + p.exitValue() : "timed out")
                    + ": " + stdout + "\n" + Files.readString(log));
        }
        JsonNode moved = JSON.readTree(stdout);
        double moveSeconds = seconds(end - start);
        out.put("moveSeconds", moveSeconds);
        out.put("movePhases", moved.path("phases"));
        out.put("moveScriptTotalSeconds", moved.path("totalSeconds").doubleValue());
        out.put("moveExportPlusImportSeconds", moved.path("exportPlusImportSeconds").doubleValue());
        out.put("moveScriptWritesRefusedSeconds", moved.path("writesRefusedSeconds").doubleValue());
        out.put("events", moved.path("events").longValue());
        out.put("sourceEpoch", moved.path("sourceEpoch").longValue());
        out.put("targetEpoch", moved.path("targetEpoch").longValue());
        double ratio = moveSeconds / baselineSeconds;
        out.put("ratio", Math.round(ratio * 1000) / 1000.0);

        Map<String, Object> w = writer.summary(start, end, b.baseUrl());
        double refused = ((Number) w.get("refusedSeconds")).doubleValue();
        out.put("writesRefusedSeconds", refused);
        out.put("refusedWindowWithinMove", w.get("withinMove"));
        out.put("refusedAfterMoveWith410", w.get("refusedAfterMoveWith410"));
        out.put("writes", w);

        Map<String, Object> checksums = new LinkedHashMap<>();
        for (String profile : List.of("accepted-state-v1", "public-view-v1")) {
            JsonNode at = JSON.readTree(call(a.baseUrl(), "GET", PATH + "/state-checksum?profile=" + profile, "op",
                    null).body()).path("tables");
            JsonNode bt = JSON.readTree(call(b.baseUrl(), "GET", PATH + "/state-checksum?profile=" + profile, "op",
                    null).body()).path("tables");
            checksums.put(profile, !at.isMissingNode() && at.equals(bt));
        }
        out.put("checksumEqual", checksums.get("accepted-state-v1"));
        out.put("publicViewEqual", checksums.get("public-view-v1"));
        out.put("targetMet", ratio <= 2.0 && refused <= 2.0 * baselineSeconds
                && Boolean.TRUE.equals(w.get("withinMove")) && ((Number) w.get("acceptedAfterRefusal")).intValue() == 0
                && Boolean.TRUE.equals(checksums.get("accepted-state-v1")));
    }

    /**
     * One item write every {@value #WRITE_INTERVAL_MS} ms (a new item each) until stopped, each answer recorded with
     * when it was sent and answered.
     */
    private final class Writer implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final String base;
        private final List<Attempt> attempts = new ArrayList<>();

        Writer(String base) {
            this.base = base;
        }

        @Override
        public void run() {
            long next = System.nanoTime();
            for (int k = 0; !stop.get(); k++) {
                long sent = System.nanoTime();
                int status;
                String code = null;
                String location = null;
                try {
                    HttpResponse<String> r = call(base, "PUT", PATH + "/items/writer-" + k, "w",
                            "{\"attributes\":{\"name\":\"written during the move " + k + "\"}}");
                    status = r.statusCode();
                    if (status >= 400) {
                        JsonNode problem = JSON.readTree(r.body());
                        code = problem.path("code").stringValue();
                        location = problem.path("location").stringValue();
                    }
                } catch (Exception e) {
                    status = -1;
                    code = e.getClass().getSimpleName();
                }
                synchronized (attempts) {
                    attempts.add(new Attempt(sent, System.nanoTime(), status, code, location));
                }
                next += TimeUnit.MILLISECONDS.toNanos(WRITE_INTERVAL_MS);
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(sleep);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                } else {
                    next = System.nanoTime();
                }
            }
        }

        Map<String, Object> summary(long start, long end, String target) {
            synchronized (attempts) {
                return MoveScenario.summary(List.copyOf(attempts), start, end, target);
            }
        }
    }

    /**
     * The writer's attempts against the move's [start, end] (nanoTime of the script's start and exit): the refused
     * window (the first refused write sent to the last 409 STREAM_MOVING answered) and whether it lies within the
     * move, writes accepted after the first refusal was answered (none may be), and whether every write sent after
     * the script ended answered 410 STREAM_MOVED naming {@code target}.
     */
    static Map<String, Object> summary(List<Attempt> all, long start, long end, String target) {
        Attempt firstRefused = all.stream().filter(Attempt::refused).findFirst().orElse(null);
        Attempt lastMoving = all.stream().filter(x -> "STREAM_MOVING".equals(x.code()))
                .reduce((x, y) -> y).orElse(null);
        Attempt firstMoved = all.stream().filter(x -> "STREAM_MOVED".equals(x.code())).findFirst().orElse(null);
        List<Attempt> after = all.stream().filter(x -> x.sent() > end).toList();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("attempts", all.size());
        m.put("acceptedBeforeMove", all.stream().filter(x -> x.status() == 200 && x.answered() < start).count());
        m.put("accepted", all.stream().filter(x -> x.status() == 200).count());
        m.put("refusedMoving", all.stream().filter(x -> "STREAM_MOVING".equals(x.code())).count());
        m.put("refusedMoved", all.stream().filter(x -> "STREAM_MOVED".equals(x.code())).count());
        m.put("other", all.stream().filter(x -> x.status() != 200 && !"STREAM_MOVING".equals(x.code())
                && !"STREAM_MOVED".equals(x.code())).map(x -> x.status() + " " + x.code()).distinct().toList());
        m.put("acceptedAfterRefusal", firstRefused == null ? 0
                : all.stream().filter(x -> x.status() == 200 && x.sent() > firstRefused.answered()).count());
        m.put("firstRefusedAfterMoveStartSeconds", firstRefused == null ? null
                : seconds(firstRefused.sent() - start));
        m.put("lastMovingBeforeMoveEndSeconds", lastMoving == null ? null : seconds(end - lastMoving.answered()));
        m.put("firstMovedAfterMoveStartSeconds", firstMoved == null ? null : seconds(firstMoved.sent() - start));
        double refused = firstRefused == null || lastMoving == null ? 0
                : seconds(lastMoving.answered() - firstRefused.sent());
        m.put("refusedSeconds", refused);
        m.put("withinMove", firstRefused != null && lastMoving != null && firstRefused.sent() >= start
                && lastMoving.answered() <= end);
        m.put("refusedAfterMoveWith410", !after.isEmpty() && after.stream().allMatch(x -> x.status() == 410
                && "STREAM_MOVED".equals(x.code()) && target.equals(x.location())));
        return m;
    }

    /** One write: nanoTime sent and answered, HTTP status (-1: no answer), the problem's code and location. */
    record Attempt(long sent, long answered, int status, String code, String location) {
        boolean refused() {
            return status == 409 || status == 410;
        }
    }

    /** A lease and {@code POST /v1/exports} of the stream, polled every 200 ms (as the script does) until READY. */
    private String export(String base, long epoch) throws Exception {
        JsonNode lease = ok(base, "POST", "/v1/retention/leases", "{\"tenant\":\"" + TENANT + "\",\"catalog\":\""
                + CATALOG + "\",\"epoch\":" + epoch + ",\"ttlSeconds\":3600,\"owner\":\"bench-move\"}");
        JsonNode started = ok(base, "POST", "/v1/exports", "{\"tenant\":\"" + TENANT + "\",\"catalog\":\"" + CATALOG
                + "\",\"leaseId\":\"" + lease.path("leaseId").stringValue() + "\"}");
        while (true) {
            JsonNode e = ok(base, "GET", "/v1/exports/" + started.path("exportId").stringValue(), null);
            switch (e.path("status").stringValue()) {
                case "READY" -> {
                    return e.path("manifestKey").stringValue();
                }
                case "RUNNING" -> Thread.sleep(200);
                default -> throw new IllegalStateException("export ended " + e);
            }
        }
    }

    /** {@code --convert-snapshot} as the script runs it (a child JVM, tiered compilation stopped at level 1). */
    private static JsonNode convert(Path jar, String manifestKey, Path objects, Path output) throws Exception {
        Process p = new ProcessBuilder(ServiceProcess.javaBin(), "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
                "--convert-snapshot", manifestKey, "--object-store", "file:" + objects, "--output", output.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("--convert-snapshot exited " + p.exitValue() + ": " + stdout);
        }
        return JSON.readTree(stdout);
    }

    /** The source's history, imported by the jar's {@code --bootstrap-import} before its resolver starts. */
    private static void importFile(Path jar, TestDatabase db, TestDatabase control, Path file) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(ServiceProcess.javaBin(), "-Xmx1g", "-XX:TieredStopAtLevel=1", "-jar",
                jar.toString(), "--bootstrap-import", file.toString(), "--tenant", TENANT, "--catalog", CATALOG,
                "--synchronous-commit-off").redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().putAll(datasource(db, control));
        Process p = pb.start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("--bootstrap-import exited " + p.exitValue() + ": " + stdout);
        }
    }

    private static ServiceProcess resolver(TestDatabase db, TestDatabase control, Path objects) throws Exception {
        Map<String, String> env = new LinkedHashMap<>(datasource(db, control));
        env.put("OBJECT_STORE_URI", "file:" + objects);
        env.put("SECURITY_TOKENS", TOKENS);
        return ServiceProcess.start("resolver-service", freePort(), env);
    }

    private static Map<String, String> datasource(TestDatabase db, TestDatabase control) {
        return ControlDatabase.env(control, Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                "SPRING_DATASOURCE_USERNAME", db.username(),
                "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password()));
    }

    /** {@code bin/move-stream.sh} of the checkout the bench runs in (searched upwards, as the jars are). */
    private static Path locateScript() {
        for (Path base = Path.of("").toAbsolutePath(); base != null; base = base.getParent()) {
            Path script = base.resolve("bin").resolve("move-stream.sh");
            if (Files.exists(script)) {
                return script;
            }
        }
        throw new IllegalStateException("bin/move-stream.sh not found: run the bench from the checkout");
    }

    private HttpResponse<String> call(String base, String method, String path, String token, String body)
            throws Exception {
        // the writer's attempts must not hang on one request: a write answers within seconds or counts as failed
        Duration timeout = "w".equals(token) ? Duration.ofSeconds(5) : Duration.ofMinutes(30);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode ok(String base, String method, String path, String body) throws Exception {
        HttpResponse<String> r = call(base, method, path, "op", body);
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static double seconds(long nanos) {
        return Latencies.round(nanos / 1e9);
    }
}
