package com.acme.catalog.bench;

import com.acme.catalog.testsupport.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.testsupport.SnapshotEventsGenerator;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.json.JsonMapper;

/**
 * The bootstrap import of generated events.json files of each size, run exactly as an operator runs it
 * ({@code java -jar resolver-service.jar --bootstrap-import …}, one child process per run, each into a fresh
 * database): default chunking against the one-commit-per-event reference ({@code --chunk-events 1}) in the same
 * run. Import time is the importer's own (lock to last commit, validation included; JVM start excluded, reported
 * separately); commits are the importer's count and, as a cross-check, the database's {@code xact_commit} delta
 * (which also holds the handful of start-up and bookkeeping transactions of the process).
 */
final class BootstrapScenario implements Scenario {

    private static final String TARGETS = "chunked >= 20x faster than one commit per event at the largest size, "
            + ">= 98% fewer commits, chunked time per event at the largest size within 1.2x of the smallest";

    @Override
    public String name() {
        return "bootstrap";
    }

    @Override
    public String description() {
        return "bootstrap import, default chunking vs --chunk-events 1 [--sizes=17000,50000 --seed=1 "
                + "--variants=chunked,oracle (also: chunk500, unbatched, async)]";
    }

    /** Extra JVM options of every importer process, the same for every variant ({@code --jvm-opts}). */
    private List<String> jvmOptions = List.of();

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        List<Integer> sizes = new ArrayList<>();
        for (String s : o.string("sizes", "17000,50000").split(",")) {
            sizes.add(Integer.parseInt(s.trim()));
        }
        List<String> variants = List.of(o.string("variants", "chunked,oracle").split(","));
        long seed = o.integer("seed", 1);
        String jvm = o.string("jvm-opts", "").trim();
        jvmOptions = jvm.isEmpty() ? List.of() : List.of(jvm.split("\\s+"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("importerJvmOptions", jvmOptions);
        out.put("sizes", sizes);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("loadAverageBefore", loadAverage());
        out.put("targets", TARGETS);
        Map<Integer, Map<String, Map<String, Object>>> results = new LinkedHashMap<>();
        Path dir = Files.createTempDirectory("bench-bootstrap-");
        try {
            for (int size : sizes) {
                Path file = dir.resolve("events-" + size + ".json");
                SnapshotEventsGenerator.write(file, size, seed);
                WriteScenario.progress("bootstrap: %d events, %d bytes in %s", size, Files.size(file), file);
                Map<String, Map<String, Object>> bySize = new LinkedHashMap<>();
                for (String variant : variants) {
                    bySize.put(variant, importOnce(file, size, variant.trim()));
                }
                results.put(size, bySize);
                out.put("events" + size, bySize);
            }
        } finally {
            try (var files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
            }
            Files.deleteIfExists(dir);
        }
        ratios(out, sizes, results);
        return out;
    }

    private Map<String, Object> importOnce(Path file, int size, String variant) throws Exception {
        List<String> flags = switch (variant) {
            case "chunked" -> List.of();
            case "oracle" -> List.of("--chunk-events", "1");
            case "unbatched" -> List.of("--unbatched-statements");
            case "async" -> List.of("--synchronous-commit-off");
            case "chunk500" -> List.of("--chunk-events", "500");
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        try (TestDatabase db = TestDatabase.create("bench_bootstrap_" + variant + "_" + size);
             TestDatabase control = TestDatabase.create("bench_bootstrap_control")) {
            List<String> cmd = new ArrayList<>(List.of(ServiceProcess.javaBin(), "-Xmx1g"));
            cmd.addAll(jvmOptions);
            cmd.addAll(List.of("-jar", ServiceProcess.locate("resolver-service").toString(), "--bootstrap-import",
                    file.toString(), "--tenant", "bench", "--catalog", "import"));
            cmd.addAll(flags);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("SPRING_DATASOURCE_URL", db.jdbcUrl());
            pb.environment().put("SPRING_DATASOURCE_USERNAME", db.username());
            pb.environment().put("SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password());
            pb.environment().putAll(ControlDatabase.env(control, Map.of()));
            WriteScenario.progress("bootstrap: %d events, %s %s", size, variant, String.join(" ", flags));
            long commitsBefore = xactCommit(db);
            long t0 = System.nanoTime();
            Process p = pb.start();
            String stdout = new String(p.getInputStream().readAllBytes());
            int exit = p.waitFor();
            long wall = System.nanoTime() - t0;
            if (exit != 0) {
                throw new IllegalStateException(variant + " import exited " + exit + ": " + stdout);
            }
            Thread.sleep(500); // let the exited backends' statistics land
            long commitsAfter = xactCommit(db);
            @SuppressWarnings("unchecked")
            Map<String, Object> summary = JsonMapper.builder().build().readValue(stdout, Map.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> timings = (Map<String, Object>) summary.get("timings");
            double importMs = ((Number) timings.get("totalMs")).doubleValue();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("flags", String.join(" ", flags));
            r.put("events", summary.get("logicalTransactions"));
            r.put("commits", summary.get("commits"));
            r.put("xactCommitDelta", commitsAfter - commitsBefore);
            r.put("importSeconds", Latencies.round(importMs / 1000));
            r.put("processSeconds", Latencies.round(wall / 1e9));
            r.put("msPerEvent", Math.round(importMs / size * 10000) / 10000.0);
            r.put("eventsPerSecond", summary.get("eventsPerSecond"));
            r.put("commitsPerSecond", summary.get("commitsPerSecond"));
            r.put("chunks", summary.get("chunks"));
            r.put("timings", timings);
            r.put("loadAverageAfter", loadAverage());
            return r;
        }
    }

    private static void ratios(Map<String, Object> out, List<Integer> sizes,
            Map<Integer, Map<String, Map<String, Object>>> results) {
        for (int size : sizes) {
            Map<String, Map<String, Object>> r = results.get(size);
            if (r.containsKey("chunked") && r.containsKey("oracle")) {
                double speedup = number(r.get("oracle"), "importSeconds") / number(r.get("chunked"), "importSeconds");
                double fewer = 1 - number(r.get("chunked"), "commits") / number(r.get("oracle"), "commits");
                double fewerXact = 1 - number(r.get("chunked"), "xactCommitDelta")
                        / number(r.get("oracle"), "xactCommitDelta");
                out.put("ratioSpeedup" + size, Latencies.round(speedup));
                out.put("ratioCommitReduction" + size, Math.round(fewer * 10000) / 10000.0);
                out.put("ratioXactCommitReduction" + size, Math.round(fewerXact * 10000) / 10000.0);
            }
        }
        int small = sizes.get(0);
        int large = sizes.get(sizes.size() - 1);
        if (small != large && results.get(small).containsKey("chunked")) {
            double scaling = number(results.get(large).get("chunked"), "msPerEvent")
                    / number(results.get(small).get("chunked"), "msPerEvent");
            out.put("ratioChunkedMsPerEvent" + large + "vs" + small, Latencies.round(scaling));
            Object speedup = out.get("ratioSpeedup" + large);
            Object fewer = out.get("ratioCommitReduction" + large);
            if (speedup != null) {
                out.put("targetsMet", (Double) speedup >= 20 && (Double) fewer >= 0.98 && scaling <= 1.2);
            }
        }
    }

    /** The 1-minute load average (Linux), to read the figures of a shared machine with; null elsewhere. */
    private static Double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return null;
        }
    }

    private static double number(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).doubleValue();
    }

    private static long xactCommit(TestDatabase db) throws SQLException {
        try (Connection c = db.connect()) {
            c.createStatement().execute("SELECT pg_stat_clear_snapshot()");
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
                ps.setString(1, db.name());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }
}
