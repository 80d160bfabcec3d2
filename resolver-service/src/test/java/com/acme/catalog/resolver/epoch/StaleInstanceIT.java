package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;

/**
 * Two resolver instances on one database and one control store. This (the test's) instance re-reads the control
 * store only once an hour, so after the other instance rotated an epoch it still holds the old one: it must not
 * commit a write or deliver an event of the fenced epoch. The database fence stops it, not its cache: the write
 * locks the open cursor row, which is in the new epoch (503 STREAM_FENCED, then it re-reads and writes in the new
 * one); the relay's reads find the old epoch's cursor fenced.
 */
@TestPropertySource(properties = {"control.refresh-interval=PT1H", "control.grace=PT2H",
        "control.rollback-check-interval=PT1H", "relay.enabled=true", "relay.batch-events=1",
        "relay.poll-interval=PT0.2S", "relay.timeout=PT30S", "rotation.enabled=false"})
class StaleInstanceIT extends EpochIT {

    @Autowired
    Environment env;

    @Test
    void aStaleInstanceCannotCommitAWriteInTheEpochAnotherInstanceFenced() throws Exception {
        writeItems("acme", "stale", 3);
        try (SecondInstance other = new SecondInstance(env)) {
            assertThat(other.post("/v1/admin/maintenance", "{\"enabled\":true}")).isEqualTo(200);
            assertThat(putItem("acme", "stale", "during").code()).as("maintenance on another instance")
                    .isEqualTo("MAINTENANCE");
            assertThat(other.post("/v1/epochs/acme/stale/rotate", "{\"reason\":\"restore\"}")).isEqualTo(200);
            assertThat(other.post("/v1/admin/maintenance", "{\"enabled\":false}")).isEqualTo(200);
        }
        Response stale = putItem("acme", "stale", "late");
        assertThat(stale.status()).as(stale.raw()).isEqualTo(503);
        assertThat(stale.code()).isEqualTo("STREAM_FENCED");
        assertThat(jdbc.sql("SELECT epoch || ':' || count(*) FROM outbox WHERE catalog = 'stale' GROUP BY epoch")
                .query(String.class).list()).containsExactly("1:3");

        Response fresh = putItem("acme", "stale", "late");
        assertThat(fresh.status()).as(fresh.raw()).isEqualTo(200);
        assertThat(fresh.number("epoch")).isEqualTo(2);
        assertThat(fresh.number("position")).isEqualTo(1);
    }

    /** A fleet rotation by the other instance fences this one's old cursors the same way. */
    @Test
    void aStaleInstanceCannotCommitAWriteInAnEpochAFleetRotationFenced() throws Exception {
        writeItems("stale-fleet", "a", 2);
        writeItems("stale-fleet", "b", 2);
        try (SecondInstance other = new SecondInstance(env)) {
            other.fleetRotate("stale-fleet");
        }
        for (String c : List.of("a", "b")) {
            Response stale = putItem("stale-fleet", c, "late");
            assertThat(stale.status()).as(stale.raw()).isEqualTo(503);
            assertThat(stale.code()).isEqualTo("STREAM_FENCED");
            Response fresh = putItem("stale-fleet", c, "late");
            assertThat(fresh.number("epoch")).isEqualTo(2);
            assertThat(fresh.number("position")).isEqualTo(1);
        }
        assertThat(jdbc.sql("SELECT epoch || ':' || count(*) FROM outbox WHERE tenant = 'stale-fleet' GROUP BY epoch "
                + "ORDER BY epoch").query(String.class).list()).containsExactly("1:4", "2:2");
    }

    /**
     * The relay of this instance is inside a slow delivery of epoch 1 when the other instance rotates (maintenance on,
     * rotate, off, all before the delivery returns): it must not go on to the next batch of the fenced epoch. Two
     * fences stop it, each enough alone (checked by removing them): the relay's read of the next batch finds the
     * epoch's cursor fenced, and the rotation dropped the epoch's delivery claims, so the relay's record of the
     * delivery finds its claim gone.
     */
    @Test
    void aStaleRelayDeliversNothingOfTheFencedEpochAfterTheRotation() throws Exception {
        AtomicInteger arrived = new AtomicInteger();
        HttpServer consumer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        consumer.createContext("/inbox", exchange -> {
            exchange.getRequestBody().readAllBytes();
            arrived.incrementAndGet();
            sleep(2500);
            byte[] ok = "{\"results\":[]}".getBytes();
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        consumer.start();
        try {
            writeItems("acme", "stale-relay", 10);
            Response registered = post("/v1/retention/consumers", "op", Map.of("consumerId", "slow",
                    "tenant", "acme", "catalog", "stale-relay", "epoch", 1,
                    "deliveryUrl", "http://127.0.0.1:" + consumer.getAddress().getPort() + "/inbox"));
            assertThat(registered.status()).as(registered.raw()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(20)).until(() -> arrived.get() == 1);
            try (SecondInstance other = new SecondInstance(env)) {
                other.rotate("acme", "stale-relay");
            }
            int atRotation = arrived.get();
            Thread.sleep(7000); // the slow delivery returns, then two more would have arrived
            assertThat(arrived.get()).as("deliveries that arrived after the rotation").isEqualTo(atRotation);
        } finally {
            consumer.stop(0);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
