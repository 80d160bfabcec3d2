package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.testsupport.CuttableProxy;
import com.acme.catalog.testsupport.FreshDatabase;
import com.acme.catalog.testsupport.TestDatabase;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The control store becomes unreachable (its connections cut by a proxy in front of it): writes keep going on the
 * held epoch for the grace, then fail closed with 503 CONTROL_STORE_UNAVAILABLE writing nothing, the relay delivers
 * nothing, reads keep working and {@code resolver_control_store_up} is 0; once the store answers again everything
 * resumes and the high-water marks catch up.
 */
@FreshDatabase
@TestPropertySource(properties = {"control.refresh-interval=PT0.2S", "control.grace=PT3S",
        "control.high-water-mark-interval=PT0.2S", "control.datasource.connect-timeout=PT1S",
        "control.datasource.query-timeout=PT2S", "relay.enabled=true", "relay.poll-interval=PT0.2S"})
class ControlStoreOutageIT extends EpochIT {

    private static final TestDatabase CONTROL = TestDatabase.create("ControlStoreOutageIT_control");
    private static final CuttableProxy PROXY = proxy();

    @DynamicPropertySource
    static void control(DynamicPropertyRegistry registry) {
        URI direct = URI.create(CONTROL.jdbcUrl().substring("jdbc:".length()));
        registry.add("control.datasource.url", () -> "jdbc:postgresql://127.0.0.1:" + PROXY.port() + direct.getPath());
        registry.add("control.datasource.username", CONTROL::username);
        registry.add("control.datasource.password", () -> CONTROL.password() == null ? "" : CONTROL.password());
    }

    @AfterAll
    static void drop() throws Exception {
        PROXY.close();
        CONTROL.close();
    }

    @Test
    void writesAndTheRelayFailClosedAfterTheGraceAndResumeWhenTheStoreAnswers() throws Exception {
        writeItems("acme", "outage", 3);
        assertThat(metric("resolver_control_store_up")).isEqualTo(1.0);

        PROXY.cut();
        assertThat(putItem("acme", "outage", "within-grace").status()).as("the held epoch is trusted for the grace")
                .isEqualTo(200);
        // every write until then is still committed on the held epoch
        await().atMost(Duration.ofSeconds(20)).until(() -> putItem("acme", "outage", "refused").status() == 503);
        long position = get("/v1/streams/acme/outage/cursor", "op").number("position");
        assertThat(position).as("reads keep working").isGreaterThanOrEqualTo(4);
        Response refused = putItem("acme", "outage", "refused");
        assertThat(refused.code()).isEqualTo("CONTROL_STORE_UNAVAILABLE");
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(get("/v1/streams/acme/outage/cursor", "op").number("position")).as("nothing written")
                .isEqualTo(position);
        assertThat(get("/v1/streams/acme/outage/state-checksum", "op").status()).isEqualTo(200);
        assertThat(get("/v1/epochs/acme/outage", "op").code()).isEqualTo("CONTROL_STORE_UNAVAILABLE");
        assertThat(metric("resolver_control_store_up")).isZero();
        assertThat(putItem("acme", "outage-new", "first").code()).as("a stream never read before")
                .isEqualTo("CONTROL_STORE_UNAVAILABLE");

        AtomicInteger deliveries = new AtomicInteger();
        HttpServer consumer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        consumer.createContext("/inbox", exchange -> {
            exchange.getRequestBody().readAllBytes();
            deliveries.incrementAndGet();
            byte[] ok = "{\"results\":[]}".getBytes();
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        consumer.start();
        try {
            assertThat(post("/v1/retention/consumers", "op", Map.of("consumerId", "p", "tenant", "acme", "catalog",
                    "outage", "epoch", 1, "deliveryUrl", "http://127.0.0.1:" + consumer.getAddress().getPort()
                            + "/inbox")).status()).isEqualTo(201);
            Thread.sleep(2000);
            assertThat(deliveries.get()).as("deliveries while the control store is out of reach").isZero();
            assertThat(get("/v1/streams/acme/outage/cursor", "op").number("position")).isEqualTo(position);

            PROXY.mend();
            await().atMost(Duration.ofSeconds(20)).until(() -> putItem("acme", "outage", "back").status() == 200);
            await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.get() > 0);
            assertThat(metric("resolver_control_store_up")).isEqualTo(1.0);
            long head = get("/v1/streams/acme/outage/cursor", "op").number("position");
            await().atMost(Duration.ofSeconds(20)).until(() -> highWaterMark("acme", "outage", 1) == head);
        } finally {
            consumer.stop(0);
        }
    }

    private static CuttableProxy proxy() {
        URI direct = URI.create(CONTROL.jdbcUrl().substring("jdbc:".length()));
        try {
            return new CuttableProxy(direct.getHost(), direct.getPort() < 0 ? 5432 : direct.getPort());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
