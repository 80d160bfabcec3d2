package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Maintenance mode of the resolver: a row that pauses writes (503 MAINTENANCE, nothing written), the bootstrap import
 * and the relay until it is turned off; and the switch answers only after every write that passed the check before
 * it has ended, so no write commits after the switch said "on".
 */
class MaintenanceIT extends EpochIT {

    @Autowired
    DataSource dataSource;

    @AfterEach
    void off() {
        maintenance(false);
    }

    @Test
    void maintenancePausesWritesAndTheImportUntilItIsTurnedOffAndItIsARow() {
        assertThat(get("/v1/admin/maintenance", "op").raw()).isEqualTo("{\"enabled\":false}");
        writeItems("acme", "paused", 3);

        JsonNode on = maintenance(true).body();
        assertThat(on.path("enabled").booleanValue()).isTrue();
        assertThat(on.path("since").isString()).isTrue();
        assertThat(jdbc.sql("SELECT enabled FROM maintenance_mode").query(Boolean.class).single()).isTrue();
        // turning it on again keeps since
        assertThat(maintenance(true).body().path("since")).isEqualTo(on.path("since"));

        Response write = putItem("acme", "paused", "late");
        assertThat(write.status()).isEqualTo(503);
        assertThat(write.code()).isEqualTo("MAINTENANCE");
        assertThat(write.contentType()).startsWith("application/problem+json");
        Response tx = post("/v1/streams/acme/paused/transactions", "w", Map.of("changes", List.of(
                Map.of("op", "upsertItem", "itemId", "t", "attributes", Map.of()))));
        assertThat(tx.code()).isEqualTo("MAINTENANCE");
        assertThat(putItem("acme", "new-stream", "x").code()).isEqualTo("MAINTENANCE");
        Response imported = post("/v1/streams/acme/imported/bootstrap-import", "op", "[]");
        assertThat(imported.status()).isEqualTo(503);
        assertThat(imported.code()).isEqualTo("MAINTENANCE");
        assertThat(outboxRows("acme", "paused")).isEqualTo(3);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE catalog IN ('new-stream', 'imported')")
                .query(Long.class).single()).isZero();
        // reads keep working
        assertThat(get("/v1/streams/acme/paused/cursor", "op").number("position")).isEqualTo(3);

        assertThat(maintenance(false).raw()).isEqualTo("{\"enabled\":false}");
        assertThat(putItem("acme", "paused", "late").number("position")).isEqualTo(4);
    }

    @Test
    void onlyAnOperatorSwitchesItAndABadBodyChangesNothing() {
        assertThat(post("/v1/admin/maintenance", "w", Map.of("enabled", true)).code()).isEqualTo("FORBIDDEN");
        assertThat(post("/v1/admin/maintenance", null, Map.of("enabled", true)).code()).isEqualTo("UNAUTHENTICATED");
        assertThat(get("/v1/admin/maintenance", "c").code()).isEqualTo("FORBIDDEN");
        for (String bad : List.of("{}", "{\"enabled\":\"yes\"}", "{\"enabled\":\"true\"}", "{\"enabled\":1}",
                "{\"enabled\":null}", "[]", "not json")) {
            Response r = post("/v1/admin/maintenance", "op", bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.code()).as(bad).isEqualTo("INVALID_BODY");
        }
        assertThat(jdbc.sql("SELECT enabled FROM maintenance_mode").query(Boolean.class).single()).isFalse();
    }

    /**
     * A write holds past its check (the row it upserts is locked by the test): the switch waits for it, and the write
     * is committed when the switch answers. Without the maintenance hold in the cursor lock the switch answers at once
     * and the write commits after it.
     */
    @Test
    void theSwitchWaitsForAWriteThatPassedTheCheck() throws Exception {
        putItem("acme", "inflight", "held");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (Statement st = blocker.createStatement()) {
                st.execute("SELECT 1 FROM item WHERE catalog = 'inflight' AND item_id = 'held' FOR UPDATE");
            }
            Future<Response> write = pool.submit(() -> putItem("acme", "inflight", "held"));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnTheItemRow() > 0);
            Future<Long> switched = pool.submit(() -> {
                maintenance(true);
                return position("inflight");
            });
            try {
                switched.get(1500, TimeUnit.MILLISECONDS);
                throw new AssertionError("the switch answered while a write that passed the check was in flight");
            } catch (TimeoutException expected) {
                // waiting for the write
            }
            blocker.rollback();
            assertThat(write.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(switched.get(10, TimeUnit.SECONDS)).as("committed when the switch answered").isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
        assertThat(putItem("acme", "inflight", "after").code()).isEqualTo("MAINTENANCE");
        assertThat(position("inflight")).isEqualTo(2);
    }

    /**
     * Eight writers of four streams hammer while maintenance is turned on: once the switch answers, the cursors
     * never move again. Repeated with random pauses; fails without the maintenance hold.
     */
    @Test
    void noWriteCommitsAfterTheSwitchAnswered() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 6; round++) {
            maintenance(false);
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService writers = Executors.newFixedThreadPool(8);
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                String catalog = "race-" + (w % 4);
                String item = "w" + w;
                running.add(CompletableFuture.runAsync(() -> {
                    while (!stop.get()) {
                        putItem("acme", catalog, item);
                    }
                }, writers));
            }
            Thread.sleep(200 + random.nextInt(300));
            maintenance(true);
            long atSwitch = totalPosition();
            Thread.sleep(300);
            stop.set(true);
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            writers.shutdown();
            assertThat(totalPosition()).as("round %d, seed %d: positions committed after the switch answered", round,
                    seed).isEqualTo(atSwitch);
        }
    }

    private long waitingOnTheItemRow() {
        return jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO item%'").query(Long.class).single();
    }

    private long position(String catalog) {
        return jdbc.sql("SELECT position FROM stream_cursor WHERE tenant = 'acme' AND catalog = ?").params(catalog)
                .query(Long.class).single();
    }

    private long totalPosition() {
        return jdbc.sql("SELECT coalesce(sum(position), 0) FROM stream_cursor WHERE catalog LIKE 'race-%'")
                .query(Long.class).single();
    }
}
