package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * SPK-05's fault suite: two resolver and two product instances from their jars on a PostgreSQL cluster of the
 * suite's own, a seeded load on three streams, the faults of {@link Faults.Kind} at seeded random times, then
 * convergence without any manual step and the {@link Checker} over the recorded history.
 *
 * <p>Short run by default (about two minutes of faults, every kind at least once); {@code -Dfault.minutes=20} is
 * the long run ({@code bin/fault-run.sh}); {@code -Dfault.seed=} replays a seed. Prints one JSON summary line
 * ({@code FAULT-SUMMARY {...}}) and writes it to {@code target/fault-summary.json}.
 */
class FaultSuiteIT {

    static final List<String> CATALOGS = List.of("s0", "s1", "s2");

    @Test
    void theHistoryHoldsUnderFaults() throws Exception {
        String missing = FaultPostgres.unavailableReason();
        if (missing != null) {
            System.out.println("[fault] fault suite skipped: cannot run a PostgreSQL cluster of its own: " + missing);
        }
        Assumptions.assumeTrue(missing == null, "fault suite skipped: cannot run a PostgreSQL cluster of its own: "
                + missing);
        long seed = Long.getLong("fault.seed", System.currentTimeMillis());
        double minutes = Double.parseDouble(System.getProperty("fault.minutes", "2"));
        boolean longRun = minutes > 5;
        long outageMs = longRun ? 15_000 : 4_000;
        System.out.println("[fault] seed " + seed + " (replay: -Dfault.seed=" + seed + "), " + minutes + " min");

        History history = new History();
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("seed", seed);
        summary.put("minutes", minutes);
        try (FaultPostgres pg = FaultPostgres.create(); Cluster cluster = new Cluster(pg, CATALOGS)) {
            cluster.startResolvers();
            cluster.installPruneAudit();
            Load load = new Load(cluster, history, seed);
            load.seedStreams();
            cluster.registerProduct();
            Ops ops = new Ops(cluster, seed);
            ops.registerAuditConsumer();
            cluster.startProducts();
            Ops.installRebuildAudit(pg);
            Faults faults = new Faults(cluster, history, ops);
            List<Faults.Planned> plan = Faults.plan(seed, (long) (minutes * 60_000), outageMs);
            long t0 = System.nanoTime();
            load.start();
            ops.start();
            Checker checker = new Checker(cluster);
            long convergenceMs = -1;
            Thread light = faults.startLight(seed, longRun ? 1500 : 3000, longRun ? 6000 : 10_000);
            try {
                faults.run(plan);
            } finally {
                faults.stopLight(light);
                faults.lastFaultEndNanos = System.nanoTime();
                Thread.sleep(2000);
                load.stop();
                ops.stop();
                ops.releaseAuditConsumer();
            }
            long stopped = System.nanoTime();
            long deadline = stopped + 300_000_000_000L;
            while (System.nanoTime() < deadline) {
                if (checker.converged()) {
                    convergenceMs = (System.nanoTime() - faults.lastFaultEndNanos) / 1_000_000;
                    break;
                }
                Thread.sleep(500);
            }
            summary.put("runSeconds", (stopped - t0) / 1_000_000_000L);
            if (convergenceMs < 0) {
                checker.violations.add("not converged 300 s after the load stopped");
            } else {
                // after the faults, a rebuild of every stream finishes by itself (a later DONE for every 410)
                summary.put("finalRebuilds", finalRebuilds(ops, checker));
                long again = System.nanoTime() + 120_000_000_000L;
                while (!checker.converged() && System.nanoTime() < again) {
                    Thread.sleep(500);
                }
            }
            checker.check(history);
            checker.checkRetention();
            checker.checkRebuilds();
            checker.checkBootstrapStreams(faults.bootstrapStreams, Faults.BOOTSTRAP_EVENTS);
            checker.violations.addAll(0, ops.violations);
            checker.violations.addAll(0, faults.violations);
            Map<String, Object> outcomes = new LinkedHashMap<>();
            history.byOutcome().forEach((k, v) -> outcomes.put(k.name().toLowerCase(java.util.Locale.ROOT), v));
            summary.put("ops", outcomes);
            summary.put("opsByKind", byKind(history));
            summary.put("notOkByReason", history.notOkByReason());
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
            Map<String, Long> operations = new java.util.TreeMap<>();
            ops.counts.forEach((k, v) -> operations.put(k, v.get()));
            summary.put("operations", operations);
            summary.put("faultLog", faults.log);
            summary.put("heads", checker.heads);
            summary.put("convergenceMsAfterLastFault", convergenceMs);
            summary.put("violations", checker.violations);
            String json = Cluster.JSON.writeValueAsString(summary);
            System.out.println("FAULT-SUMMARY " + json);
            Path out = Path.of("target", "fault-summary.json");
            Files.createDirectories(out.getParent());
            Files.writeString(out, json + "\n");
            if (!checker.violations.isEmpty()) {
                System.out.println("[fault] service logs: " + cluster.logs + ", PostgreSQL log: " + pg.log());
            }
            assertThat(checker.violations).as("violations, seed %d (replay with -Dfault.seed=%d)", seed, seed)
                    .isEmpty();
            assertThat(faults.injected.keySet()).as("every fault kind injected, seed %d", seed)
                    .containsExactlyInAnyOrder(Faults.Kind.values());
            assertThat(history.byOutcome().getOrDefault(History.Outcome.OK, 0L)).as("ok writes").isPositive();
        }
    }

    /**
     * A rebuild of every stream once the faults stopped, each to DONE (at most 240 s in all). A rebuild still running
     * from before may have been cut by the last faults (a cut connection ends it FAILED, docs/spk-05.md findings):
     * then one more is started, as an operator would.
     */
    private static Map<String, String> finalRebuilds(Ops ops, Checker checker) throws Exception {
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
                tools.jackson.databind.JsonNode st = null;
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
                checker.violations.add("no rebuild of " + c + " ended DONE after the faults: " + outcome);
            }
        }
        return out;
    }

    private static Map<String, Map<String, Long>> byKind(History history) {
        Map<String, Map<String, Long>> out = new java.util.TreeMap<>();
        for (History.Op op : history.ops) {
            out.computeIfAbsent(op.kind, k -> new java.util.TreeMap<>())
                    .merge(String.valueOf(op.outcome).toLowerCase(java.util.Locale.ROOT), 1L, Long::sum);
        }
        return out;
    }
}
