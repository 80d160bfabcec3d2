package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * SPK-05's fault suite: two resolver and two product instances from their jars on PostgreSQL servers of the
 * suite's own (the resolver's a primary with a streaming standby, so it can fail over), a seeded load on three streams, the faults of {@link Faults.Kind} at seeded random times, then
 * convergence without any manual step and the {@link Checker} over the recorded history.
 *
 * <p>The run, one method per phase, each handing its result to the next:
 * <ol>
 *   <li>start the cluster: PostgreSQL of the suite's own and the two proxies ({@link Cluster});</li>
 *   <li>{@link #startResolvers}, with the pruning audit;</li>
 *   <li>{@link #seed} the streams ({@link Load});</li>
 *   <li>{@link #startProducts}, with the audit consumer and the rebuild audit ({@link Ops});</li>
 *   <li>{@link #loadWithFaults}: the load and the operator side run while the faults are injected;</li>
 *   <li>{@link #quiesce}: wait for convergence, then a rebuild of every stream to DONE;</li>
 *   <li>{@link #checkHistory}: every violation, of the run and of the {@link Checker};</li>
 *   <li>{@link #report}: the summary line and file.</li>
 * </ol>
 *
 * <p>Short run by default (about two minutes of faults, every kind at least once); {@code -Dfault.minutes=20} is
 * the long run ({@code bin/fault-run.sh}); {@code -Dfault.seed=} replays a seed. Prints one JSON summary line
 * ({@code FAULT-SUMMARY {...}}) and writes it to {@code target/fault-summary.json}.
 */
class FaultSuiteIT {

    static final List<String> CATALOGS = List.of("s0", "s1", "s2");

    @Test
    void theHistoryHoldsUnderFaults() throws Exception {
        assumeAClusterOfItsOwn();
        Settings settings = Settings.fromSystemProperties();
        System.out.println("[fault] seed " + settings.seed() + " (replay: -Dfault.seed=" + settings.seed() + "), "
                + settings.minutes() + " min");
        History history = new History();
        try (ReplicatedPostgres rpg = ReplicatedPostgres.create();
                FaultPostgres pg = FaultPostgres.create(FaultPostgres.freePort());
                Cluster cluster = new Cluster(pg, rpg, CATALOGS)) {
            startResolvers(cluster);
            Load load = seed(cluster, history, settings.seed());
            Ops ops = startProducts(cluster, pg, settings.seed());
            Faults faults = new Faults(cluster, history, ops);
            LoadRun run = loadWithFaults(settings, load, ops, faults);
            faults.awaitFailovers();
            Checker checker = new Checker(cluster);
            faults.failovers.forEach(f -> checker.lostTails.addAll(f.lostTails));
            Quiescence quiet = quiesce(checker, ops, faults, run);
            List<String> violations = checkHistory(checker, history, faults, ops, quiet, load.retryMs);
            report(settings, run, quiet, history, faults, ops, checker, violations);
            if (!violations.isEmpty()) {
                System.out.println("[fault] service logs: " + cluster.logs + ", PostgreSQL logs: " + pg.log() + ", "
                        + rpg.primary().log() + ", " + rpg.standby().log());
            }
            assertThat(violations).as("violations, seed %d (replay with -Dfault.seed=%d)", settings.seed(),
                    settings.seed()).isEmpty();
            assertThat(faults.injected.keySet()).as("every fault kind injected, seed %d", settings.seed())
                    .containsExactlyInAnyOrder(Faults.Kind.values());
            assertThat(history.byOutcome().getOrDefault(History.Outcome.OK, 0L)).as("ok writes").isPositive();
        }
    }

    /**
     * The run's parameters, from {@code -Dfault.seed} and {@code -Dfault.minutes}.
     *
     * @param outageMs the shortest outage a fault plans (the longest is twice that)
     */
    record Settings(long seed, double minutes, boolean longRun, long outageMs) {

        static Settings fromSystemProperties() {
            long seed = Long.getLong("fault.seed", System.currentTimeMillis());
            double minutes = Double.parseDouble(System.getProperty("fault.minutes", "2"));
            boolean longRun = minutes > 5;
            return new Settings(seed, minutes, longRun, longRun ? 15_000 : 4_000);
        }

        long planMs() {
            return (long) (minutes * 60_000);
        }

        long lightMinMs() {
            return longRun ? 1500 : 3000;
        }

        long lightMaxMs() {
            return longRun ? 6000 : 10_000;
        }
    }

    /**
     * What {@link #loadWithFaults} leaves behind.
     *
     * @param runSeconds   from the start of the load to its stop
     * @param stoppedNanos when the load and the operator side had stopped
     */
    record LoadRun(long runSeconds, long stoppedNanos) {
    }

    /**
     * What {@link #quiesce} found.
     *
     * @param convergenceMs how long after the last fault both products and the audit consumer reached every head, or
     *                      -1 when they did not within 300 s of the load's stop
     * @param finalRebuilds per stream, how its last rebuild ended (null when not converged: none was started)
     * @param violations    in the order found
     */
    record Quiescence(long convergenceMs, Map<String, String> finalRebuilds, List<String> violations) {
    }

    private static void assumeAClusterOfItsOwn() {
        String missing = FaultPostgres.unavailableReason();
        if (missing != null) {
            System.out.println("[fault] fault suite skipped: cannot run a PostgreSQL cluster of its own: " + missing);
        }
        Assumptions.assumeTrue(missing == null, "fault suite skipped: cannot run a PostgreSQL cluster of its own: "
                + missing);
    }

    /** Both resolver instances, and the audit that records every pruned outbox row. */
    private static void startResolvers(Cluster cluster) throws Exception {
        cluster.startResolvers();
        cluster.installPruneAudit();
    }

    /** @return the load, its streams seeded */
    private static Load seed(Cluster cluster, History history, long seed) throws Exception {
        Load load = new Load(cluster, history, seed);
        load.seedStreams();
        return load;
    }

    /**
     * The product registered as a consumer, the harness's audit consumer, both product instances and the audit of
     * every rebuild step.
     *
     * @return the operator side, not yet started
     */
    private static Ops startProducts(Cluster cluster, FaultPostgres pg, long seed) throws Exception {
        cluster.registerProduct();
        Ops ops = new Ops(cluster, seed);
        ops.registerAuditConsumer();
        cluster.startProducts();
        Ops.installRebuildAudit(pg);
        return ops;
    }

    /**
     * The seeded plan of faults injected one after another, light faults alongside, while the load and the operator
     * side run; then both stopped (2 s after the faults) and the audit consumer's progress moved to every head.
     */
    private static LoadRun loadWithFaults(Settings settings, Load load, Ops ops, Faults faults) throws Exception {
        List<Faults.Planned> plan = Faults.plan(settings.seed(), settings.planMs(), settings.outageMs());
        long t0 = System.nanoTime();
        load.start();
        ops.start();
        Thread light = faults.startLight(settings.seed(), settings.lightMinMs(), settings.lightMaxMs());
        try {
            faults.run(plan);
        } finally {
            faults.stopLight(light);
            Thread.sleep(2000);
            load.stop();
            ops.stop();
            ops.releaseAuditConsumer();
        }
        long stopped = System.nanoTime();
        return new LoadRun((stopped - t0) / 1_000_000_000L, stopped);
    }

    /**
     * Waits (at most 300 s after the load's stop) until the system converged; then a rebuild of every stream
     * finishes by itself (a later DONE for every 410), and convergence is awaited once more (at most 120 s).
     */
    private static Quiescence quiesce(Checker checker, Ops ops, Faults faults, LoadRun run) throws Exception {
        long convergenceMs = -1;
        long deadline = run.stoppedNanos() + 300_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (checker.converged()) {
                convergenceMs = (System.nanoTime() - faults.lastFaultEndNanos()) / 1_000_000;
                break;
            }
            Thread.sleep(500);
        }
        if (convergenceMs < 0) {
            return new Quiescence(convergenceMs, null, List.of("not converged 300 s after the load stopped"));
        }
        List<String> violations = new ArrayList<>();
        Map<String, String> rebuilds = finalRebuilds(ops, violations);
        long again = System.nanoTime() + 120_000_000_000L;
        while (!checker.converged() && System.nanoTime() < again) {
            Thread.sleep(500);
        }
        return new Quiescence(convergenceMs, rebuilds, List.copyOf(violations));
    }

    /**
     * A rebuild of every stream once the faults stopped, each to DONE (at most 240 s in all). A rebuild still running
     * from before may have been cut by the last faults (a cut connection ends it FAILED, docs/spk-05.md findings):
     * then one more is started, as an operator would.
     *
     * @param violations gets one line per stream whose rebuild did not end DONE
     * @return per stream, how its last rebuild ended
     */
    private static Map<String, String> finalRebuilds(Ops ops, List<String> violations) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        long deadline = System.nanoTime() + 240_000_000_000L;
        for (int i = 0; i < CATALOGS.size(); i++) {
            String c = CATALOGS.get(i);
            String outcome = "not started";
            for (int round = 1; round <= 3 && System.nanoTime() < deadline && !outcome.startsWith("DONE"); round++) {
                String[] rb = ops.startRebuild(i % 2, c);
                if (rb == null) {
                    Thread.sleep(2000);
                    continue;
                }
                JsonNode st = null;
                String phase = null;
                while (System.nanoTime() < deadline) {
                    st = ops.rebuild(rb[1]);
                    phase = st == null ? null : st.path("phase").stringValue();
                    if (Faults.FINAL.contains(phase)) {
                        break;
                    }
                    Thread.sleep(500);
                }
                outcome = phase + " attempt " + (st == null ? "?" : st.path("attempt").intValue()) + " (round " + round
                        + (st != null && st.path("error").isString() ? ", " + st.path("error").stringValue() : "") + ")";
            }
            out.put(c, outcome);
            if (!outcome.startsWith("DONE")) {
                violations.add("no rebuild of " + c + " ended DONE after the faults: " + outcome);
            }
        }
        return out;
    }

    /**
     * Runs every check of the {@link Checker} over the stored truth.
     *
     * @return every violation: the faults' own, the operator side's, the quiescence's, then the checker's
     */
    private static List<String> checkHistory(Checker checker, History history, Faults faults, Ops ops,
            Quiescence quiet, long retryMs) throws Exception {
        checker.check(history);
        checker.checkRetries(history, faults.windows, retryMs);
        checker.checkRetention();
        checker.checkRebuilds();
        checker.checkBootstrapStreams(faults.bootstrapStreams, Faults.BOOTSTRAP_EVENTS);
        List<String> violations = new ArrayList<>(faults.violations());
        violations.addAll(ops.violations());
        violations.addAll(quiet.violations());
        violations.addAll(checker.violations());
        return violations;
    }

    /** Prints the summary line ({@code FAULT-SUMMARY {...}}) and writes it to {@code target/fault-summary.json}. */
    private static void report(Settings settings, LoadRun run, Quiescence quiet, History history, Faults faults,
            Ops ops, Checker checker, List<String> violations) throws Exception {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("seed", settings.seed());
        summary.put("minutes", settings.minutes());
        summary.put("runSeconds", run.runSeconds());
        if (quiet.finalRebuilds() != null) {
            summary.put("finalRebuilds", quiet.finalRebuilds());
        }
        Map<String, Object> outcomes = new LinkedHashMap<>();
        history.byOutcome().forEach((k, v) -> outcomes.put(k.name().toLowerCase(Locale.ROOT), v));
        summary.put("ops", outcomes);
        summary.put("opsByKind", byKind(history));
        summary.put("notOkByReason", history.notOkByReason());
        summary.putAll(history.retries());
        summary.put("unknownExcused", checker.unknownExcused);
        Map<String, Object> injected = new LinkedHashMap<>();
        faults.injected.forEach((k, v) -> injected.put(k.name(), v));
        summary.put("faults", injected);
        summary.put("faultsTotal", faults.injected.values().stream().mapToInt(Integer::intValue).sum());
        summary.put("lightFaultsMissed", faults.lightMissed.get());
        Map<String, Object> aimed = new LinkedHashMap<>();
        faults.aim.forEach((k, v) -> aimed.put(k.name(), v));
        summary.put("phaseFaults", aimed);
        summary.put("retention", checker.retention);
        summary.put("rebuilds", checker.rebuilds);
        Map<String, Long> operations = new TreeMap<>();
        ops.counts.forEach((k, v) -> operations.put(k, v.get()));
        summary.put("operations", operations);
        summary.put("faultLog", faults.log);
        summary.put("heads", checker.heads);
        summary.put("rotations", faults.rotations);
        summary.put("epochs", checker.epochHeads);
        summary.put("convergenceMsAfterLastFault", quiet.convergenceMs());
        List<Map<String, Object>> failovers = new ArrayList<>();
        for (Failover f : List.copyOf(faults.failovers)) {
            failovers.add(f.summary(history, checker.lostWrites));
        }
        summary.put("failovers", failovers);
        summary.put("acknowledgedWritesLostByFailover", checker.lostWrites.stream().map(String::valueOf).toList());
        summary.put("writesRefusedHistoryRolledBack", history.ops.stream().flatMap(o -> o.attemptLog.stream())
                .filter(a -> a.contains("HISTORY_ROLLED_BACK")).count());
        summary.put("violations", violations);
        String json = Cluster.JSON.writeValueAsString(summary);
        System.out.println("FAULT-SUMMARY " + json);
        Path out = Path.of("target", "fault-summary.json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, json + "\n");
    }

    private static Map<String, Map<String, Long>> byKind(History history) {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        for (History.Op op : history.ops) {
            out.computeIfAbsent(op.kind, k -> new TreeMap<>())
                    .merge(String.valueOf(op.outcome).toLowerCase(Locale.ROOT), 1L, Long::sum);
        }
        return out;
    }
}
