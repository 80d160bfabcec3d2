package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Restoring the resolver's database under many streams, as an operator follows docs/runbooks/restore.md:
 *
 * <pre>
 * java -jar bench/target/bench.jar restore [--streams=10 --tenants=10 --lost=0.10 --mode=auto --sample=100
 *     --lost-sample=100 --seed-threads=8 --readers=8 --timeout=3600 --open-timeout=3600]
 * </pre>
 *
 * The steps ({@link RestoreRun}, one method each):
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
 * <li>Verification ({@link RestoreChecks}; not counted as operator calls): the resolver's {@code state-checksum}
 * against the product's {@code projection-checksum}, profiles accepted-state-v1 and public-view-v1, at epoch 2, for
 * every affected stream and the unaffected sample; {@code lost-1} of every affected stream (404) and {@code item-0} of
 * every stream (200, release r0); every affected and sampled stream's completeness, stream by stream (a fleet view that
 * ended the RTO early shows here); the product's rebuilds since the resolver stopped (rows of {@code product.rebuild}:
 * there is no list endpoint; and {@code product_rebuilds_finished_total}'s increase).</li>
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
 * served, its JVM start left out). That divides out the machine's speed and keeps the ratio comparable across N and
 * runs: a restore that rebuilds every stream costs a multiple of it whatever the lost fraction (a rebuild is an
 * export and a load, opening a stream by its first delivery is neither), one whose cost follows what the restore
 * lost falls with {@code --lost}. {@code rebuildsToAffected} is
 * the rebuilds run over the streams whose projection differed from the restored state (1.0 when only those are
 * rebuilt). With {@code --mode=both}, {@code ratiosFleetToPerStream} compares the two runbooks at the same N.
 */
final class RestoreScenario implements Scenario {

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
    record Settings(int streams, int tenants, double lost, int sample, int lostSample, int seedThreads,
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
            return RestoreRun.run(mode, s, http);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", "both");
        out.put("loadAverageAtStart", ProcessCpu.loadAverage());
        Map<String, Object> perStream = RestoreRun.run("per-stream", s, http);
        Map<String, Object> fleet = RestoreRun.run("fleet", s, http);
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
    static Double ratio(Object a, Object b) {
        return a == null || b == null ? null : PropagationScenario.ratio(a, b);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> kept(Map<String, Object> run) {
        return (Map<String, Object>) run.get("unaffectedKeptServed");
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
}
