package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A product rebuild against a running resolver while 4 writer threads write during the whole rebuild: lease,
 * export, load, catch-up, cutover, consumer registration; then, after the writers stop and the relay has
 * delivered everything, the product's projection-checksum equals the resolver's state-checksum at the same
 * position under both profiles (accepted-state-v1 and public-view-v1: items released and then updated stay public
 * at the released revision through the rebuild), and the inbox of the new serving generation holds every position
 * after the export exactly once.
 */
class RebuildSystemIT {

    private static final String T = "acme";
    private static final String C = "shoes";
    private static final int WRITERS = 4;

    @Test
    void rebuildUnderConcurrentWritesEndsEqualToTheResolver() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            sys.seed(T, C, 200, "seed-1");
            sys.startProduct(sys.resolverUrl());
            // the product already consumes live (an empty start that never saw the seed): the rebuild replaces
            // that generation while the live applier keeps receiving deliveries
            sys.registerProduct(T, C);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread t = new Thread(() -> {
                    Random random = new Random(writer);
                    try {
                        while (!stop.get()) {
                            String id = "w" + writer + "-sku-" + random.nextInt(40);
                            JsonNode r = sys.ok("PUT", s + "/items/" + id, "w", "{\"attributes\":{\"name\":\"Item "
                                    + id + "\",\"price\":" + random.nextInt(500) + "}}");
                            writes.incrementAndGet();
                            if (random.nextInt(5) == 0) {
                                sys.ok("PUT", s + "/releases/rel-" + writer, "w", "{\"visibility\":\""
                                        + (random.nextBoolean() ? "PUBLIC" : "PRIVATE") + "\",\"items\":[{\"itemId\":\""
                                        + id + "\",\"revision\":" + r.path("revision").intValue() + "}]}");
                                writes.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                t.start();
                writers.add(t);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> writes.get() > 40);

            long writesBefore = writes.get();
            JsonNode started = sys.ok("POST", sys.productUrl() + "/v1/rebuilds", "op",
                    "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\"}");
            String id = started.path("rebuildId").stringValue();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
                String phase = sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null)
                        .path("phase").stringValue();
                return phase.equals("DONE") || phase.equals("FAILED");
            });
            long writesDuring = writes.get() - writesBefore;
            JsonNode done = sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null);
            assertThat(done.path("phase").stringValue()).as("%s", done).isEqualTo("DONE");
            assertThat(done.path("loadedRows").longValue()).isGreaterThanOrEqualTo(200);
            assertThat(writesDuring).as("writes while the rebuild ran").isPositive();
            assertThat(done.path("appliedEvents").longValue()).as("events caught up after the export").isPositive();
            System.err.println("rebuild " + done + " with " + writesDuring + " writes during it");
            for (String phase : List.of("LEASING", "EXPORTING", "LOADING", "CATCHING_UP", "CUTTING_OVER")) {
                assertThat(done.path("phaseMillis").path(phase).isIntegralNumber()).as("%s timed", phase).isTrue();
            }
            for (String step : List.of("load.copy", "load.indexes", "load.attach", "catchUp.fetch", "catchUp.apply")) {
                assertThat(done.path("stepMillis").path(step).isIntegralNumber()).as("%s timed", step).isTrue();
            }
            String metrics = sys.call("GET", sys.productUrl() + "/actuator/prometheus", null, null).body();
            assertThat(metric(metrics, "product_rebuild_loaded_rows_total")).isEqualTo(done.path("loadedRows")
                    .doubleValue());
            assertThat(metric(metrics, "product_rebuild_caught_up_events_total")).isEqualTo(done
                    .path("appliedEvents").doubleValue());
            assertThat(metric(metrics, "product_rebuild_load_rows_per_second")).isPositive();
            assertThat(metric(metrics, "product_rebuild_catchup_events_per_second")).isPositive();
            // the phase gauge exists only while the rebuild runs; its end is counted per instance
            assertThat(metrics).doesNotContain("product_rebuild_phase{");
            assertThat(metric(metrics, "product_rebuilds_finished_total", "outcome=\"DONE\"")).isEqualTo(1.0);

            // live deliveries continue into the new generation after the cutover
            Thread.sleep(500);
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
            assertThat(errors).isEmpty();

            long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).as("items are public")
                    .isPositive();

            assertThat(TwoServices.rows(sys.productDb, """
                    SELECT generation_id, position FROM product.inbox GROUP BY generation_id, position
                    HAVING count(*) > 1
                    """)).as("no position processed twice").isEmpty();
            long start = TwoServices.scalar(sys.productDb, """
                    SELECT g.start_position FROM product.generation g
                      JOIN product.serving_generation s USING (generation_id)
                    """);
            assertThat(TwoServices.scalar(sys.productDb, """
                    SELECT count(*) FROM product.inbox i JOIN product.serving_generation s USING (generation_id)
                    """)).as("every position after the export exactly once").isEqualTo(head - start);
            assertThat(TwoServices.scalar(sys.productDb,
                    "SELECT count(*) FROM product.generation WHERE status = 'BUILDING'")).isZero();
            assertThat(TwoServices.scalar(sys.productDb,
                    "SELECT count(*) FROM product.generation WHERE status = 'RETIRED'")).as("the live one retired")
                    .isEqualTo(1);
            assertThat(TwoServices.scalar(sys.productDb, """
                    SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                      JOIN product.generation g ON c.relname LIKE '%\\_g' || g.generation_id
                     WHERE g.status = 'RETIRED'
                    """)).as("retired partitions detached").isZero();
            assertThat(TwoServices.scalar(sys.productDb, """
                    SELECT count(*) FROM product.item i JOIN product.generation g USING (generation_id)
                     WHERE g.status = 'RETIRED'
                    """)).as("the retired generation's rows deleted (it was shared: opened without an export)")
                    .isZero();
            assertThat(TwoServices.scalar(sys.resolverDb,
                    "SELECT count(*) FROM resolver.retention_lease WHERE released_at IS NULL")).isZero();
        }
    }

    /**
     * A per-instance series of the product (docs/metrics.md: counters and rates carry no stream labels); this
     * product ran this one rebuild.
     */
    private static double metric(String scrape, String name, String... labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") && !line.contains("catalog=")
                    && java.util.Arrays.stream(labels).allMatch(line::contains)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " not in the scrape");
    }

    @Test
    void aStreamListedInProductStreamsWithoutGenerationIsRebuiltAtStart() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            for (int i = 0; i < 50; i++) {
                sys.ok("PUT", s + "/items/boot-" + i, "w", "{\"attributes\":{\"name\":\"Boot " + i + "\"}}");
            }
            sys.ok("PUT", s + "/releases/winter", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"boot-7\",\"revision\":1}]}");
            long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
            sys.startProduct(sys.resolverUrl(), java.util.Map.of("PRODUCT_STREAMS", T + "/" + C));

            await().atMost(Duration.ofSeconds(60)).until(() -> sys.checksum(T, C, "projection-checksum")
                    .path("position").longValue() == head);
            sys.assertConverged(T, C);
            assertThat(sys.call("GET", sys.productUrl() + "/v1/catalog/" + T + "/" + C + "/items/boot-7", null, null)
                    .status()).isEqualTo(200);
            JsonNode c = sys.ok("GET", sys.productUrl() + "/v1/projection-completeness?tenant=" + T + "&catalog=" + C,
                    "op", null);
            assertThat(c.path("verifiedThrough").longValue()).isEqualTo(head);
            // the consumer is registered and its durable progress is the cutover target
            await().atMost(Duration.ofSeconds(30)).until(() -> TwoServices.scalar(sys.resolverDb, """
                    SELECT coalesce(max(durable_position), -1) FROM resolver.retention_consumer
                     WHERE consumer_id = 'product-1'
                    """) == head);
        }
    }

    @Test
    void anExpiredLeaseRestartsTheRebuildFromANewExport() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            for (int i = 0; i < 30; i++) {
                sys.ok("PUT", s + "/items/tent-" + i, "w", "{\"attributes\":{\"name\":\"Tent " + i + "\"}}");
            }
            sys.startProduct(sys.resolverUrl());
            JsonNode started = sys.ok("POST", sys.productUrl() + "/v1/rebuilds", "op",
                    "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\"}");
            String id = started.path("rebuildId").stringValue();
            // expire the first attempt's lease at the resolver as soon as it exists
            java.util.concurrent.atomic.AtomicReference<Object> expired = new java.util.concurrent.atomic.AtomicReference<>();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> {
                List<java.util.Map<String, Object>> r = TwoServices.rows(sys.productDb,
                        "SELECT attempt, lease_id FROM product.rebuild WHERE rebuild_id = '" + id + "'");
                Object lease = r.get(0).get("lease_id");
                if (lease == null) {
                    return false;
                }
                try (var c = sys.resolverDb.connect()) {
                    c.createStatement().execute("UPDATE resolver.retention_lease SET expires_at = clock_timestamp() "
                            + "- interval '1 second' WHERE lease_id = '" + lease + "'");
                }
                expired.set(lease);
                return true;
            });
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                String phase = sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null)
                        .path("phase").stringValue();
                return phase.equals("DONE") || phase.equals("FAILED");
            });
            JsonNode done = sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null);
            System.err.println("rebuild after lease expiry " + done);
            assertThat(done.path("phase").stringValue()).as("%s", done).isEqualTo("DONE");
            assertThat(done.path("attempt").intValue()).as("%s", done).isEqualTo(2);
            // the expiry may hit before, during or after the first export; in every case the second attempt
            // loads an export taken under a new lease
            assertThat(TwoServices.scalar(sys.resolverDb, "SELECT count(*) FROM resolver.snapshot_export "
                    + "WHERE status = 'READY' AND lease_id <> '" + expired.get() + "'"))
                    .as("a new export under a new lease").isGreaterThanOrEqualTo(1);
            sys.assertConverged(T, C);
            assertThat(TwoServices.scalar(sys.productDb,
                    "SELECT count(*) FROM product.generation WHERE status = 'BUILDING'")).isZero();
        }
    }
}
