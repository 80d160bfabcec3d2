package com.acme.catalog.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Chunk-size qualification of the bootstrap import (seed 003: candidates 50, 100, 250, 500 events per physical
 * commit, the default to stay below the smallest safe ceiling): each fixture size at each chunk size, imported as an
 * operator runs it ({@code java -jar resolver-service.jar --bootstrap-import … --chunk-events N}) into a fresh
 * database, while a sampler on its own connection reads the import's backends every {@code --sample-ms}:
 * <ul>
 *   <li>time: the importer's {@code totalMs}; commits: the importer's count and the database's {@code xact_commit}
 *       delta;</li>
 *   <li>locks: the most locks one importing backend held at a sample (all kinds; of them relation and advisory
 *       locks), the samples at which one waited for a lock and the wait time they add up to, and the importer's own
 *       {@code lockWaitMs};</li>
 *   <li>WAL bytes: {@code pg_current_wal_lsn()} after minus before (cluster-wide: other databases' writes meanwhile
 *       count too, so read it on a quiet server);</li>
 *   <li>the transaction's memory: the most private memory ({@code RssAnon} of {@code /proc/<pid>/status}) an
 *       importing backend grew by over its first sample; null when the server's processes are not on this host.</li>
 * </ul>
 * Prints one JSON object per (size, chunk size). The fixtures are {@link SnapshotEventsGenerator}'s, the same bytes for
 * the same seed (the 17k and 50k files of the bootstrap scenario).
 */
final class ChunkSizeScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final String SQL_SAMPLE = """
            SELECT a.pid,
                   count(l.locktype) FILTER (WHERE l.granted) AS held,
                   count(l.locktype) FILTER (WHERE l.granted AND l.locktype = 'relation') AS relation,
                   count(l.locktype) FILTER (WHERE l.granted AND l.locktype = 'advisory') AS advisory,
                   count(l.locktype) FILTER (WHERE NOT l.granted) AS waiting
              FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid
             WHERE a.datname = ? AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
             GROUP BY a.pid
            """;

    @Override
    public String name() {
        return "bootstrap-chunks";
    }

    @Override
    public String description() {
        return "bootstrap import at each chunk size: time, commits, locks, WAL, backend memory "
                + "[--sizes=17000,50000 --chunks=50,100,250,500 --seed=1 --sample-ms=10]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        List<Integer> sizes = ints(o.string("sizes", "17000,50000"));
        List<Integer> chunks = ints(o.string("chunks", "50,100,250,500"));
        long seed = o.integer("seed", 1);
        int sampleMs = o.integer("sample-ms", 10);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sizes", sizes);
        out.put("chunks", chunks);
        out.put("sampleMs", sampleMs);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        List<Map<String, Object>> runs = new ArrayList<>();
        Path dir = Files.createTempDirectory("bench-chunks-");
        try {
            for (int size : sizes) {
                Path file = dir.resolve("events-" + size + ".json");
                SnapshotEventsGenerator.write(file, size, seed);
                for (int chunk : chunks) {
                    WriteScenario.progress("bootstrap-chunks: %d events, chunks of %d", size, chunk);
                    runs.add(importOnce(file, size, chunk, sampleMs));
                }
            }
        } finally {
            try (var files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
            }
            Files.deleteIfExists(dir);
        }
        out.put("runs", runs);
        // time per event at each chunk size against the default's, per fixture size
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (int size : sizes) {
            Map<String, Object> base = runs.stream().filter(r -> r.get("events").equals(size)
                    && r.get("chunkEvents").equals(100)).findFirst().orElse(null);
            if (base == null) {
                continue;
            }
            for (Map<String, Object> r : runs) {
                if (r.get("events").equals(size)) {
                    ratios.put(size + "@" + r.get("chunkEvents"), Latencies.round(((Number) r.get("importMs"))
                            .doubleValue() / ((Number) base.get("importMs")).doubleValue()));
                }
            }
        }
        out.put("ratioImportMsToChunk100", ratios);
        return out;
    }

    private Map<String, Object> importOnce(Path file, int size, int chunk, int sampleMs) throws Exception {
        try (TestDatabase db = TestDatabase.create("bench_chunks_" + chunk + "_" + size);
             TestDatabase control = TestDatabase.create("bench_chunks_control")) {
            List<String> cmd = new ArrayList<>(List.of(ServiceProcess.javaBin(), "-Xmx1g", "-XX:TieredStopAtLevel=1",
                    "-jar", ServiceProcess.locate("resolver-service").toString(), "--bootstrap-import",
                    file.toString(), "--tenant", "bench", "--catalog", "chunks", "--chunk-events",
                    Integer.toString(chunk)));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().putAll(ControlDatabase.env(control, Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                    "SPRING_DATASOURCE_USERNAME", db.username(),
                    "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password())));
            // every statement of the bench runs in the control database: none counts in the import's xact_commit
            try (Connection c = control.connect()) {
                long commitsBefore = xactCommit(c, db.name());
                String lsnBefore = lsn(c);
                Sampler sampler = new Sampler(control, db.name(), sampleMs);
                Thread t = new Thread(sampler, "bench-chunks-sampler");
                t.start();
                Process p = pb.start();
                String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                int exit = p.waitFor();
                sampler.stop.set(true);
                t.join();
                if (exit != 0) {
                    throw new IllegalStateException("import exited " + exit + ": " + stdout);
                }
                long walBytes = walDiff(c, lsnBefore);
                Thread.sleep(500); // the exited backends' statistics land
                long commits = xactCommit(c, db.name()) - commitsBefore;
                JsonNode summary = JSON.readTree(stdout);
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("events", size);
                r.put("chunkEvents", chunk);
                r.put("importMs", summary.path("timings").path("totalMs").doubleValue());
                r.put("eventsPerSecond", summary.path("eventsPerSecond").doubleValue());
                r.put("commits", summary.path("commits").intValue());
                r.put("xactCommitDelta", commits);
                r.put("lockWaitMs", summary.path("timings").path("lockWaitMs").doubleValue());
                r.put("maxLocksHeld", sampler.maxHeld);
                r.put("maxRelationLocks", sampler.maxRelation);
                r.put("maxAdvisoryLocks", sampler.maxAdvisory);
                r.put("lockWaitSamples", sampler.waitingSamples);
                r.put("lockWaitMsSampled", (long) sampler.waitingSamples * sampleMs);
                r.put("samples", sampler.samples);
                r.put("walBytes", walBytes);
                r.put("backendMemoryGrowthKb", sampler.memoryKnown ? sampler.maxGrowthKb : null);
                r.put("backendRssAnonMaxKb", sampler.memoryKnown ? sampler.maxRssKb : null);
                return r;
            }
        }
    }

    /**
     * Samples the locks and private memory of every client backend of the import's database, from a connection to
     * another database ({@code via}: its statements do not count in the import's).
     */
    private static final class Sampler implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final TestDatabase via;
        private final String database;
        private final int sampleMs;
        private final Map<Integer, Long> firstRss = new HashMap<>();
        volatile int maxHeld;
        volatile int maxRelation;
        volatile int maxAdvisory;
        volatile int waitingSamples;
        volatile int samples;
        volatile long maxGrowthKb;
        volatile long maxRssKb;
        volatile boolean memoryKnown;

        Sampler(TestDatabase via, String database, int sampleMs) {
            this.via = via;
            this.database = database;
            this.sampleMs = sampleMs;
        }

        @Override
        public void run() {
            try (Connection c = via.connect(); PreparedStatement ps = c.prepareStatement(SQL_SAMPLE)) {
                ps.setString(1, database);
                while (!stop.get()) {
                    boolean waiting = false;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            int pid = rs.getInt("pid");
                            maxHeld = Math.max(maxHeld, rs.getInt("held"));
                            maxRelation = Math.max(maxRelation, rs.getInt("relation"));
                            maxAdvisory = Math.max(maxAdvisory, rs.getInt("advisory"));
                            waiting |= rs.getInt("waiting") > 0;
                            Long rss = rssAnonKb(pid);
                            if (rss != null) {
                                memoryKnown = true;
                                long first = firstRss.computeIfAbsent(pid, k -> rss);
                                maxGrowthKb = Math.max(maxGrowthKb, rss - first);
                                maxRssKb = Math.max(maxRssKb, rss);
                            }
                        }
                    }
                    samples++;
                    if (waiting) {
                        waitingSamples++;
                    }
                    Thread.sleep(sampleMs);
                }
            } catch (SQLException e) {
                WriteScenario.progress("bootstrap-chunks: sampler stopped: %s", e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static Long rssAnonKb(int pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith("RssAnon:")) {
                        return Long.parseLong(line.replaceAll("\\D+", ""));
                    }
                }
            } catch (Exception e) {
                return null;
            }
            return null;
        }
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            out.add(Integer.parseInt(s.trim()));
        }
        return out;
    }

    private static String lsn(Connection c) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long walDiff(Connection c, String before) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)")) {
            ps.setString(1, before);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static long xactCommit(Connection c, String database) throws SQLException {
        c.createStatement().execute("SELECT pg_stat_clear_snapshot()");
        try (PreparedStatement ps = c.prepareStatement("SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
