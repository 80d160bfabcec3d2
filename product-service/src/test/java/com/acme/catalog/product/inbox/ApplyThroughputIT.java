package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The apply benchmark (docs/benchmarks.md, the row of the in-process apply of catch-up pages): generated in-order events of one stream applied through
 * {@link EventApplier} directly, as the rebuild's catch-up does (pages of {@code apply.page} events, one
 * transaction each: lock the generation, apply, save the cursor), then small batches (of {@code apply.small} events)
 * into a second stream, as the live inbox does. Prints one JSON line. Sizes are small by default so the class
 * stays cheap in {@code mvn verify}; the recorded figures use {@code -Dapply.events=100000}.
 */
class ApplyThroughputIT extends ProductIT {

    private static final int EVENTS = Integer.getInteger("apply.events", 10_000);
    private static final int PAGE = Integer.getInteger("apply.page", 1000);
    private static final int SMALL = Integer.getInteger("apply.small", 5);
    private static final int SMALL_BATCHES = Integer.getInteger("apply.small-batches", 400);

    @Autowired
    EventApplier applier;
    @Autowired
    GenerationRepository generations;
    @Autowired
    DeliveryParser parser;
    @Autowired
    TransactionTemplate tx;

    @Test
    void appliesGeneratedEventsAndReportsEventsPerSecond() {
        StreamId big = new StreamId("bench", "pages");
        List<IntegrationEvent> events = generate(big, EVENTS, 1);
        long g = start(big);
        Cpu pageCpu = new Cpu();
        long t0 = System.nanoTime();
        for (int i = 0; i < events.size(); i += PAGE) {
            apply(g, events.subList(i, Math.min(events.size(), i + PAGE)));
        }
        double pageSeconds = (System.nanoTime() - t0) / 1e9;
        pageCpu.stop();

        StreamId live = new StreamId("bench", "small");
        List<IntegrationEvent> smallEvents = generate(live, SMALL * SMALL_BATCHES, 2);
        long gs = start(live);
        double[] batchMs = new double[SMALL_BATCHES];
        Cpu smallCpu = new Cpu();
        for (int b = 0; b < SMALL_BATCHES; b++) {
            long s = System.nanoTime();
            apply(gs, smallEvents.subList(b * SMALL, (b + 1) * SMALL));
            batchMs[b] = (System.nanoTime() - s) / 1e6;
        }
        smallCpu.stop();
        Arrays.sort(batchMs);

        Projections projections = new Projections(jdbc);
        assertThat(projections.cursor(big)).containsExactly(EVENTS, EVENTS, EVENTS);
        assertThat(projections.held(big)).isZero();
        assertThat(projections.cursor(live)[1]).isEqualTo((long) SMALL * SMALL_BATCHES);
        System.out.printf("{\"scenario\":\"apply\",\"events\":%d,\"page\":%d,\"pageApplySeconds\":%.3f,"
                + "\"eventsPerSecond\":%.0f,\"smallBatch\":%d,\"smallBatches\":%d,\"smallBatchP50Ms\":%.2f,"
                + "\"smallBatchP99Ms\":%.2f,\"smallBatchMaxMs\":%.2f,\"publicItems\":%d,"
                + "\"pageCpuUsPerEvent\":{\"jvm\":%.1f,\"database\":%.1f},"
                + "\"smallBatchCpuMs\":{\"jvm\":%.2f,\"database\":%.2f},\"loadAverage\":\"%s\"}%n", EVENTS, PAGE,
                pageSeconds, EVENTS / pageSeconds, SMALL, SMALL_BATCHES, pct(batchMs, 0.50), pct(batchMs, 0.99),
                batchMs[batchMs.length - 1], projections.count("public_item", g),
                pageCpu.jvmNanos / 1e3 / EVENTS, pageCpu.databaseNanos / 1e3 / EVENTS,
                smallCpu.jvmNanos / 1e6 / SMALL_BATCHES, smallCpu.databaseNanos / 1e6 / SMALL_BATCHES,
                Cpu.loadAverage());
    }

    private long start(StreamId stream) {
        return tx.execute(s -> generations.startServingEmpty(stream, 1)).generationId();
    }

    private void apply(long generation, List<IntegrationEvent> page) {
        tx.executeWithoutResult(s -> {
            GenerationCursor locked = generations.lockGeneration(generation).orElseThrow();
            applier.apply(locked, page);
        });
    }

    private List<IntegrationEvent> generate(StreamId stream, int n, long seed) {
        ChainWriter chain = new ChainWriter(stream, 1, new Random(seed));
        Workload workload = new Workload(new Random(seed));
        List<IntegrationEvent> out = new ArrayList<>(n);
        while (out.size() < n) {
            for (ChainWriter.Event e : chain.transaction(List.of(workload.next()))) {
                out.add(parser.parseWire(e.wire(), e.chainDigest()));
            }
        }
        return out;
    }

    /**
     * CPU time of this thread (the applier runs on it) and of the PostgreSQL backends serving this database, so a
     * figure does not depend on how busy the shared machine was. Backends are read from /proc (same host only;
     * zero elsewhere).
     */
    private final class Cpu {
        private final long jvmStart = java.lang.management.ManagementFactory.getThreadMXBean()
                .getCurrentThreadCpuTime();
        private final long databaseStart = databaseCpu();
        long jvmNanos;
        long databaseNanos;

        void stop() {
            jvmNanos = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - jvmStart;
            databaseNanos = databaseCpu() - databaseStart;
        }

        private long databaseCpu() {
            List<Integer> pids = jdbc.sql("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
                    .query(Integer.class).list();
            long ticks = 0;
            for (int pid : pids) {
                try {
                    String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", pid + "", "stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (java.io.IOException | RuntimeException e) {
                    // not on this host, or gone: counts as zero
                }
            }
            return ticks * 10_000_000L;
        }

        static String loadAverage() {
            try {
                return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).substring(0, 14).trim();
            } catch (java.io.IOException | RuntimeException e) {
                return "";
            }
        }
    }

    private static double pct(double[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /**
     * A resolver-like mix, O(1) per event: 45% new items, 25% re-upserts of live items, 5% deletions, 8% mappings
     * (1,000 ids), 4% policies (100 ids), 10% releases (200 ids, 70% PUBLIC) naming 1-5 live item revisions,
     * 3% decisions (not projected).
     */
    private static final class Workload {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final Random random;
        private final Map<String, Integer> revisions = new HashMap<>();
        private final List<String> live = new ArrayList<>();
        private final Map<String, Integer> liveRevision = new HashMap<>();
        private int items;

        Workload(Random random) {
            this.random = random;
        }

        Change next() {
            int roll = random.nextInt(100);
            if (roll < 45 || live.size() < 10) {
                return upsert("sku-" + (++items));
            }
            if (roll < 70) {
                return upsert(live.get(random.nextInt(live.size())));
            }
            if (roll < 75) {
                int i = random.nextInt(live.size());
                String id = live.get(i);
                live.set(i, live.get(live.size() - 1));
                live.remove(live.size() - 1);
                liveRevision.remove(id);
                return change("ItemDeleted", "item", id, List.of(), JSON.createObjectNode());
            }
            if (roll < 83) {
                ObjectNode p = JSON.createObjectNode().put("source", "vendor-" + random.nextInt(500))
                        .put("target", "attr-" + random.nextInt(80));
                return change("MappingUpserted", "mapping", "map-" + random.nextInt(1000), List.of(), p);
            }
            if (roll < 87) {
                ObjectNode p = JSON.createObjectNode();
                p.putObject("rules").put("minPrice", random.nextInt(50));
                return change("PolicyUpserted", "policy", "policy-" + random.nextInt(100), List.of(), p);
            }
            if (roll < 97) {
                ObjectNode p = JSON.createObjectNode().put("visibility", random.nextInt(10) < 7 ? "PUBLIC" : "PRIVATE");
                ArrayNode named = p.putArray("items");
                List<AggregateRevision> deps = new ArrayList<>();
                for (int k = 1 + random.nextInt(5); k > 0; k--) {
                    String id = live.get(random.nextInt(live.size()));
                    named.addObject().put("itemId", id).put("revision", liveRevision.get(id));
                    deps.add(new AggregateRevision("item", id, liveRevision.get(id)));
                }
                return change("ReleasePublished", "release", "release-" + random.nextInt(200), deps, p);
            }
            ObjectNode p = JSON.createObjectNode().put("decision", "ACCEPT");
            return new Change("DecisionRecorded", "decision", "decision-" + random.nextInt(), 1, List.of(), p);
        }

        private Change upsert(String id) {
            ObjectNode p = JSON.createObjectNode();
            p.putObject("attributes").put("name", "Trail runner " + id).put("price", 10 + random.nextInt(200))
                    .put("color", random.nextBoolean() ? "black" : "blue");
            Change c = change("ItemUpserted", "item", id, List.of(), p);
            if (!liveRevision.containsKey(id)) {
                live.add(id);
            }
            liveRevision.put(id, c.revision());
            return c;
        }

        private Change change(String type, String aggregateType, String id, List<AggregateRevision> extra,
                ObjectNode payload) {
            int r = revisions.merge(aggregateType + ":" + id, 1, Integer::sum);
            List<AggregateRevision> deps = new ArrayList<>();
            if (r > 1) {
                deps.add(new AggregateRevision(aggregateType, id, r - 1));
            }
            deps.addAll(extra);
            return new Change(type, aggregateType, id, r, deps, payload);
        }
    }
}
