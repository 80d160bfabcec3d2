package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.acme.catalog.resolver.support.ResolverIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/**
 * The relay's token goes only to RELAY_ALLOWED_DELIVERY_URLS. A registration outside them is
 * 400 {@code DELIVERY_URL_NOT_ALLOWED} and registers nothing; a consumer whose URL was registered before the list
 * (a row in the database) is never sent a delivery, while an allowed one next to it gets every event.
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=relay-secret", "relay.poll-interval=PT1S",
        "relay.backoff-initial=PT0.2S", "relay.backoff-max=PT1S",
        "relay.allowed-delivery-urls=http://127.0.0.1:"})
class RelayAllowlistIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    MeterRegistry meters;

    @Test
    void aRegistrationOutsideTheAllowlistIsRefusedAndRegistersNothing() {
        List<String> refused = List.of(
                "http://attacker.example/inbox",
                "http://127.0.0.1.attacker.example/inbox", // the prefix's host extended
                "http://127.0.0.1:1@attacker.example/inbox", // user info: the host is attacker.example
                "https://127.0.0.1:8443/inbox", // another scheme
                "http://localhost:8082/v1/inbox/events"); // the same machine under a name the operator did not list
        for (String url : refused) {
            for (String token : List.of("c", "op")) {
                Response r = post("/v1/retention/consumers", token, "{\"consumerId\":\"thief\",\"tenant\":\"acme\","
                        + "\"catalog\":\"allow\",\"epoch\":1,\"deliveryUrl\":\"" + url + "\"}");
                assertThat(r.status()).as(url + ": " + r.raw()).isEqualTo(400);
                assertThat(r.code()).isEqualTo("DELIVERY_URL_NOT_ALLOWED");
                assertThat(r.raw()).doesNotContain("127.0.0.1:"); // the allowlist is not told to callers
            }
        }
        assertThat(jdbc.sql("SELECT count(*) FROM retention_consumer WHERE consumer_id = 'thief'")
                .query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM stream_retention WHERE catalog = 'allow'").query(Long.class)
                .single()).as("not even the stream's retention row").isZero();
        // an allowed URL, and a pull consumer without one, still register
        assertThat(post("/v1/retention/consumers", "c", "{\"consumerId\":\"ok\",\"tenant\":\"acme\",\"catalog\":"
                + "\"allow\",\"epoch\":1,\"deliveryUrl\":\"http://127.0.0.1:8082/v1/inbox/events\"}").status())
                .isEqualTo(201);
        assertThat(post("/v1/retention/consumers", "c", "{\"consumerId\":\"puller\",\"tenant\":\"acme\",\"catalog\":"
                + "\"allow\",\"epoch\":1}").status()).isEqualTo(201);
    }

    @Test
    void aUrlRegisteredBeforeTheAllowlistIsNeverSentTheToken() throws Exception {
        try (FakeConsumer allowed = new FakeConsumer(); FakeConsumer outside = new FakeConsumer()) {
            String outsideUrl = outside.url().replace("127.0.0.1", "localhost");
            put("/v1/streams/acme/allow-late/items/first", "w", "{\"attributes\":{\"name\":\"first\"}}");
            // registered by an older release, before RELAY_ALLOWED_DELIVERY_URLS existed
            jdbc.sql("""
                    INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                                    registered_by)
                    VALUES ('old-thief', 'acme', 'allow-late', 1, 0, ?, 'token-5')
                    """).params(outsideUrl).update();
            assertThat(post("/v1/retention/consumers", "c", "{\"consumerId\":\"good\",\"tenant\":\"acme\",\"catalog\":"
                    + "\"allow-late\",\"epoch\":1,\"deliveryUrl\":\"" + allowed.url() + "\"}").status()).isEqualTo(201);
            double refusedBefore = refusedCount();
            for (int i = 0; i < 5; i++) {
                put("/v1/streams/acme/allow-late/items/i" + i, "w", "{\"attributes\":{\"name\":\"i\"}}");
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> allowed.accepted().stream()
                    .anyMatch(d -> d.body().contains("\"position\":6,")));
            // the relay tried the old consumer at least twice by now: refused (or, without the check, delivered)
            await().atMost(Duration.ofSeconds(20)).until(() -> !outside.deliveries.isEmpty()
                    || refusedCount() > refusedBefore + 1);
            assertThat(outside.deliveries).as("nothing, and no token, was sent outside the allowlist")
                    .extracting(FakeConsumer.Delivery::authorization).isEmpty();
            assertThat(allowed.accepted()).allSatisfy(d -> assertThat(d.authorization()).isEqualTo("Bearer relay-secret"));
            String error = jdbc.sql("SELECT last_error FROM relay_delivery WHERE consumer_id = 'old-thief'")
                    .query(String.class).single();
            assertThat(error).contains("RELAY_ALLOWED_DELIVERY_URLS");
        }
    }

    private double refusedCount() {
        var c = meters.find("resolver.relay.refused.deliveries").counter();
        return c == null ? 0 : c.count();
    }
}
