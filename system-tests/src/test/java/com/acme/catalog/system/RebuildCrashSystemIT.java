package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The product process is killed (SIGKILL) in each phase of a rebuild while a writer keeps writing: in LOADING
 * (the load transaction is open), in CATCHING_UP (a BUILDING generation is committed) and in CUTTING_OVER (the
 * cutover transaction holds the live lock, just before the swap). The restarted process (same instance id) takes
 * the worker lease over with a new fence, retires the abandoned shadow, and restarts the same rebuild from a new
 * export, which completes. Each restart carries the next phase's test pause, so one resolver and four product
 * starts cover the three phases. At the end, after quiescing: product checksum == resolver checksum (both
 * profiles; the seeded public item was updated after its release, so it stays public at the released revision), no
 * position applied twice, no BUILDING generation, and partitions exist only for the serving generation.
 */
class RebuildCrashSystemIT {

    private static final String T = "acme";
    private static final String C = "crash";
    private static final long PAUSE_MS = 4000;

    @Test
    void aRebuildKilledInEachPhaseCompletesAfterRestart() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            sys.seed(T, C, 300, "seed-3");
            // released at revision 1, now at 2: public at the released revision through every rebuild
            sys.ok("PUT", s + "/items/seed-3", "w", "{\"attributes\":{\"name\":\"Seed 3, updated\"}}");

            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            Thread writer = new Thread(() -> {
                Random random = new Random(7);
                try {
                    while (!stop.get()) {
                        sys.ok("PUT", s + "/items/sku-" + random.nextInt(60), "w",
                                "{\"attributes\":{\"price\":" + random.nextInt(900) + "}}");
                        Thread.sleep(15);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            writer.start();

            // 1. an operator's rebuild (the stream itself opens without one: its outbox is retained from position 1),
            //    killed while its load transaction is open
            startProduct(sys, "LOADING");
            String first = postRebuild(sys);
            killIn(sys, first, "LOADING");

            // 2. the restarted process resumes it; then a second rebuild is killed after a catch-up page committed
            startProduct(sys, "CATCHING_UP");
            awaitDone(sys, first, 2);
            assertNoOrphans(sys);
            String second = postRebuild(sys);
            killIn(sys, second, "CATCHING_UP");
            long abandoned = TwoServices.scalar(sys.productDb,
                    "SELECT coalesce(max(generation_id), -1) FROM product.generation WHERE status = 'BUILDING'");
            assertThat(abandoned).as("the killed catch-up left its BUILDING generation").isPositive();

            // 3. resumed (its abandoned shadow retired); a third rebuild is killed inside the cutover transaction
            startProduct(sys, "CUTTING_OVER");
            awaitDone(sys, second, 2);
            assertNoOrphans(sys);
            assertThat(TwoServices.scalar(sys.productDb,
                    "SELECT count(*) FROM product.generation WHERE status = 'RETIRED' AND generation_id = "
                            + abandoned)).isEqualTo(1);
            long servingBefore = servingGeneration(sys);
            String third = postRebuild(sys);
            killIn(sys, third, "CUTTING_OVER");

            // 4. the swap never happened: the old generation still serves until the resumed rebuild cuts over
            assertThat(servingGeneration(sys)).isEqualTo(servingBefore);
            startProduct(sys, null);
            awaitDone(sys, third, 2);

            stop.set(true);
            writer.join();
            assertThat(errors).isEmpty();
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(1);
            JsonNode seed = sys.ok("GET", sys.productUrl() + "/v1/catalog/" + T + "/" + C + "/items/seed-3", null, null);
            assertThat(seed.path("revision").intValue()).isEqualTo(1);
            assertThat(seed.path("attributes").path("name").stringValue()).isEqualTo("Seed 3");
            assertThat(TwoServices.rows(sys.productDb, """
                    SELECT generation_id, position FROM product.inbox GROUP BY generation_id, position
                    HAVING count(*) > 1
                    """)).as("no position processed twice").isEmpty();
            assertNoOrphans(sys);
            await().atMost(Duration.ofSeconds(30)).until(() -> TwoServices.scalar(sys.resolverDb,
                    "SELECT count(*) FROM resolver.retention_lease WHERE released_at IS NULL "
                            + "AND expires_at > clock_timestamp()") == 0);
        }
    }

    private static void startProduct(TwoServices sys, String pausePhase) throws Exception {
        String pause = pausePhase == null ? ""
                : ",\"test-pause\":{\"" + pausePhase + "\":\"" + PAUSE_MS + "ms\"}";
        sys.startProduct(sys.resolverUrl(), Map.of(
                "PRODUCT_STREAMS", T + "/" + C,
                "PRODUCT_INSTANCE_ID", "product-a",
                // four product starts: the client compiler alone starts the jar about twice as fast
                "JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1",
                "SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":{\"resync-interval\":\"PT1S\"},"
                        + "\"recovery\":{\"interval\":\"PT5S\"},\"rebuild\":{\"retry-max-delay\":\"PT2S\",\"page-limit\":200"
                        + pause + "}}}"));
    }

    private static void killIn(TwoServices sys, String rebuildId, String phase) throws Exception {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() ->
                phase.equals(rebuild(sys, rebuildId).path("phase").stringValue()));
        sys.product.kill();
        System.err.println("killed the product in " + phase + " of rebuild " + rebuildId);
    }

    private static void awaitDone(TwoServices sys, String rebuildId, int minAttempt) throws Exception {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            String p = rebuild(sys, rebuildId).path("phase").stringValue();
            return p.equals("DONE") || p.equals("FAILED");
        });
        JsonNode r = rebuild(sys, rebuildId);
        System.err.println("after restart: " + r);
        assertThat(r.path("phase").stringValue()).as("%s", r).isEqualTo("DONE");
        assertThat(r.path("attempt").intValue()).as("%s", r).isGreaterThanOrEqualTo(minAttempt);
        assertThat(r.path("error").stringValue()).as("%s", r).contains("the previous worker stopped during");
    }

    /** No BUILDING generation, and partitions only for the serving generation. */
    private static void assertNoOrphans(TwoServices sys) throws Exception {
        assertThat(TwoServices.scalar(sys.productDb,
                "SELECT count(*) FROM product.generation WHERE status = 'BUILDING'")).isZero();
        List<Map<String, Object>> partitions = TwoServices.rows(sys.productDb, """
                SELECT DISTINCT substring(c.relname from '_g([0-9]+)$') AS generation
                  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'product' AND c.relkind = 'r' AND c.relname ~ '_g[0-9]+$'
                """);
        assertThat(partitions).extracting(m -> Long.parseLong((String) m.get("generation")))
                .containsExactly(servingGeneration(sys));
    }

    private static long servingGeneration(TwoServices sys) throws Exception {
        return TwoServices.scalar(sys.productDb, "SELECT generation_id FROM product.serving_generation");
    }

    private static String postRebuild(TwoServices sys) throws Exception {
        return sys.ok("POST", sys.productUrl() + "/v1/rebuilds", "op",
                "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\"}").path("rebuildId").stringValue();
    }

    private static JsonNode rebuild(TwoServices sys, String id) throws Exception {
        return sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null);
    }
}
