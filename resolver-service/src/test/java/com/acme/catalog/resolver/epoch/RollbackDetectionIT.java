package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;

/**
 * Rollback detection: a database put back to an earlier point (simulated here by deleting the outbox tail and moving
 * the cursor back in SQL) refuses writes and the relay with 503 HISTORY_ROLLED_BACK until an operator rotates. Caught
 * by the cursor being behind the control store's high-water mark (on the next write, by the check at start and the
 * periodic one), by a consumer reporting progress ahead of the cursor (the restore landed after the last recorded
 * mark), and by a database in an older epoch than the store's. Recording and the periodic check are driven by the
 * test here (their intervals are an hour).
 */
@TestPropertySource(properties = {"control.high-water-mark-interval=PT1H", "control.rollback-check-interval=PT1H",
        "relay.enabled=true", "relay.poll-interval=PT0.2S"})
class RollbackDetectionIT extends EpochIT {

    @Autowired
    HighWaterMarks marks;
    @Autowired
    RollbackDetector detector;
    @Autowired
    EpochCache cache;
    @Autowired
    Environment env;
    @Autowired
    MeterRegistry registry;

    @AfterEach
    void off() {
        maintenance(false);
    }

    @Test
    void aCursorBehindTheHighWaterMarkRefusesWritesAndTheRelayUntilTheEpochIsRotated() throws Exception {
        writeItems("acme", "behind", 20);
        Response beforeRestore = putItem("acme", "behind", "before-restore");
        assertThat(beforeRestore.number("position")).isEqualTo(21);
        long flushed = System.currentTimeMillis();
        marks.flush();
        assertThat(metric("resolver_high_water_marks_recorded_timestamp_seconds{application=\"resolver\""))
                .as("when the marks were last all recorded").isGreaterThanOrEqualTo((flushed - 1000) / 1000.0);
        assertThat(highWaterMark("acme", "behind", 1)).isEqualTo(21);
        cache.refresh();
        restoreTo("behind", 10);

        // a resolver starting on this database marks it at start (another instance here: this one has no check due
        // for an hour and nothing asked it for one yet)
        try (SecondInstance restarted = new SecondInstance(env)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> rolledBackReason("behind") != null);
        }
        assertThat(rolledBackReason("behind")).contains("behind the control store's high-water mark 21");

        double refusedBefore = refused("HISTORY_ROLLED_BACK");
        Response write = putItem("acme", "behind", "after-restore");
        assertThat(write.status()).as(write.raw()).isEqualTo(503);
        assertThat(write.code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(refused("HISTORY_ROLLED_BACK")).as("resolver_unavailable_answers_total{code=HISTORY_ROLLED_BACK}")
                .isEqualTo(refusedBefore + 1);
        assertThat(cursor("behind")).isEqualTo(10);
        detector.check();
        assertThat(metric("resolver_history_rolled_back{application=\"resolver\",catalog=\"behind\""))
                .isEqualTo(1.0);
        // readers learn it from the stream listing (a product's sweep), and from a listing of the rolled back only
        var listed = listed("/v1/streams?tenant=acme", "behind");
        assertThat(listed.path("rolledBack").booleanValue()).as("%s", listed).isTrue();
        assertThat(listed.path("rolledBackAt").isString()).as("%s", listed).isTrue();
        assertThat(listed.path("cursor").asLong()).isEqualTo(10);
        assertThat(listed("/v1/streams?rolledBack=true", "behind")).as("listed as rolled back").isNotNull();
        assertThat(get("/v1/streams?rolledBack=true", "op").body().path("streams").valueStream()
                .allMatch(e -> e.path("rolledBack").booleanValue())).isTrue();

        // a consumer registered now is relayed nothing of the rolled back history
        AtomicInteger deliveries = new AtomicInteger();
        HttpServer consumer = countingConsumer(deliveries);
        try {
            assertThat(post("/v1/retention/consumers", "op", Map.of("consumerId", "late", "tenant", "acme",
                    "catalog", "behind", "epoch", 1, "deliveryUrl", "http://127.0.0.1:"
                            + consumer.getAddress().getPort() + "/inbox")).status()).isEqualTo(201);
            Thread.sleep(1500);
            assertThat(deliveries.get()).as("deliveries of a rolled back stream").isZero();

            maintenance(true);
            double rotationsBefore = registry.get("resolver.epoch.rotations").counter().count();
            assertThat(rotate("acme", "behind", "restored from backup").number("epoch")).isEqualTo(2);
            assertThat(metric("resolver_epoch_rotations_total{application=\"resolver\""))
                    .isEqualTo(rotationsBefore + 1);
            maintenance(false);
            // absent (not 0) once the stream is no longer refused: no series per quiet stream
            assertThat(metric("resolver_history_rolled_back{application=\"resolver\",catalog=\"behind\""))
                    .isNull();
            assertThat(listed("/v1/streams?tenant=acme", "behind").path("rolledBack").booleanValue())
                    .as("the new epoch's cursor is not rolled back").isFalse();
            assertThat(listed("/v1/streams?rolledBack=true", "behind")).isNull();
            Response fresh = putItem("acme", "behind", "after-rotation");
            assertThat(fresh.number("epoch")).isEqualTo(2);
            assertThat(fresh.number("position")).isEqualTo(1);
        } finally {
            consumer.stop(0);
        }
    }

    /**
     * A failover to a replica that had not received the last commits, before any of them was recorded in the
     * control store (the recording lags by up to an interval): the instance that answered them refuses the next
     * write instead of giving a lost position to other content, and the check it asks for records its marks and
     * marks the stream rolled back for every instance and the relay.
     */
    @Test
    void aWriteBelowWhatThisInstanceAcknowledgedIsRefusedBeforeAnyMarkIsRecorded() {
        writeItems("acme", "lost-tail", 20);
        Response acknowledged = putItem("acme", "lost-tail", "acknowledged-then-lost");
        assertThat(acknowledged.number("position")).isEqualTo(21);
        assertThat(highWaterMark("acme", "lost-tail", 1)).as("nothing recorded yet").isEqualTo(-1);
        restoreTo("lost-tail", 18);

        Response write = putItem("acme", "lost-tail", "would-reuse-19");
        assertThat(write.status()).as(write.raw()).isEqualTo(503);
        assertThat(write.code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(write.raw()).contains("behind position 21 this instance committed");
        assertThat(cursor("lost-tail")).as("no lost position reused").isEqualTo(18);
        await().atMost(Duration.ofSeconds(20)).until(() -> rolledBackReason("lost-tail") != null);
        assertThat(highWaterMark("acme", "lost-tail", 1)).as("recorded by the check the write asked for")
                .isEqualTo(21);
        assertThat(rolledBackReason("lost-tail")).contains("behind the control store's high-water mark 21");
    }

    /** Without a recorded mark the cursor check cannot see the restore; the consumer's progress does. */
    @Test
    void aConsumerAheadOfTheCursorMarksTheStreamRolledBack() {
        writeItems("acme", "ahead", 10);
        assertThat(highWaterMark("acme", "ahead", 1)).as("no mark recorded yet").isEqualTo(-1);
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "acme", "catalog",
                "ahead", "epoch", 1)).status()).isEqualTo(201);
        assertThat(progress("ahead", 10).status()).isEqualTo(200);
        restoreTo("ahead", 7);
        detector.check();
        assertThat(rolledBackReason("ahead")).as("the check cannot see it: no mark was recorded").isNull();

        double detectedBefore = detected("consumer_ahead");
        Response ahead = progress("ahead", 10);
        assertThat(ahead.status()).isEqualTo(503);
        assertThat(ahead.code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(detected("consumer_ahead")).isEqualTo(detectedBefore + 1);
        assertThat(progress("ahead", 10).code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(detected("consumer_ahead")).as("a stream already marked is not detected again")
                .isEqualTo(detectedBefore + 1);
        assertThat(rolledBackReason("ahead")).contains("consumer p reported progress 10");
        assertThat(putItem("acme", "ahead", "x").code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(cursor("ahead")).isEqualTo(7);
        assertThat(metric("resolver_history_rolled_back{application=\"resolver\",catalog=\"ahead\""))
                .isEqualTo(1.0);
        // progress at or below the cursor is still recorded (it only ever holds more retention)
        assertThat(progress("ahead", 5).status()).isEqualTo(200);
    }

    @Test
    void aDatabaseFromBeforeTheControlStoresCurrentEpochIsRolledBack() {
        writeItems("acme", "older", 3);
        // the store issued epoch 2 after the backup this database was restored from was taken
        control().sql("INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer) "
                + "VALUES ('acme', 'older', 2, 'an earlier restore', 'token-1')").update();
        cache.refresh();
        // the refused write asks for a check at once: whichever check marks the stream counts it, once
        double detectedBefore = detected("older_epoch");
        Response write = putItem("acme", "older", "x");
        assertThat(write.code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(write.body().path("detail").stringValue()).contains("issued epoch 2");
        detector.check();
        assertThat(rolledBackReason("older")).contains("in epoch 1, the control store issued epoch 2");
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(detected("older_epoch")).isEqualTo(detectedBefore + 1));

        maintenance(true);
        assertThat(rotate("acme", "older", "restored again").number("epoch")).isEqualTo(3);
        maintenance(false);
        assertThat(putItem("acme", "older", "x").number("epoch")).isEqualTo(3);
    }

    /** The periodic check counts a cursor behind the mark once per instance, not at every check. */
    @Test
    void aCursorBehindTheMarkIsCountedOnceByTheCheckThatFindsIt() {
        writeItems("acme", "counted", 5);
        marks.flush();
        restoreTo("counted", 2);
        double before = detected("high_water_mark");
        assertThat(metric("resolver_rollbacks_detected_total{application=\"resolver\",signal=\"high_water_mark\""))
                .as("exposed to Prometheus").isEqualTo(before);
        detector.check();
        assertThat(detected("high_water_mark")).isEqualTo(before + 1);
        detector.check();
        assertThat(detected("high_water_mark")).as("already marked: not counted again").isEqualTo(before + 1);
    }

    private double detected(String signal) {
        return registry.get("resolver.rollbacks.detected").tag("signal", signal).counter().count();
    }

    private double refused(String code) {
        return registry.get("resolver.unavailable.answers").tag("code", code).counter().count();
    }

    /** What a restore of an earlier backup leaves: the outbox tail gone and the cursor back at {@code position}. */
    private void restoreTo(String catalog, long position) {
        jdbc.sql("DELETE FROM outbox WHERE tenant = 'acme' AND catalog = ? AND epoch = 1 AND position > ?")
                .params(catalog, position).update();
        jdbc.sql("""
                UPDATE stream_cursor c SET position = ?, chain_digest = o.chain_digest
                  FROM outbox o
                 WHERE c.tenant = 'acme' AND c.catalog = ? AND c.epoch = 1
                   AND o.tenant = c.tenant AND o.catalog = c.catalog AND o.epoch = 1 AND o.position = ?
                """).params(position, catalog, position).update();
    }

    /** The listing entry of acme/{catalog} in the answer to {@code path}, or null when it is not listed. */
    private tools.jackson.databind.JsonNode listed(String path, String catalog) {
        Response r = get(path, "op");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.body().path("streams").valueStream().filter(e -> e.path("tenant").asString().equals("acme")
                && e.path("catalog").asString().equals(catalog)).findFirst().orElse(null);
    }

    private long cursor(String catalog) {
        return jdbc.sql("SELECT position FROM stream_cursor WHERE catalog = ? AND fenced_at IS NULL")
                .params(catalog).query(Long.class).single();
    }

    private String rolledBackReason(String catalog) {
        return jdbc.sql("SELECT rolled_back_reason FROM stream_cursor WHERE catalog = ? AND fenced_at IS NULL")
                .params(catalog).query(String.class).optional().orElse(null);
    }

    private Response progress(String catalog, long position) {
        return put("/v1/retention/consumers/p/progress", "c", Map.of("tenant", "acme", "catalog", catalog,
                "epoch", 1, "position", position));
    }

    private static HttpServer countingConsumer(AtomicInteger deliveries) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/inbox", exchange -> {
            exchange.getRequestBody().readAllBytes();
            deliveries.incrementAndGet();
            byte[] ok = "{\"results\":[]}".getBytes();
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        server.start();
        return server;
    }
}
