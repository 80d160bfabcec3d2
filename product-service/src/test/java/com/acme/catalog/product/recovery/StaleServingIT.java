package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.TestClients;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * {@code product.epochs.stale-serving=serve}: the epoch poller learns a new epoch from the resolver's epoch API by
 * itself; the stale generation is still served, with a {@code Warning: 110} header, and completeness is BLOCKED
 * EPOCH_CHANGED; the worker was asked to rebuild.
 */
// its deliveries start the stream, as before deliveries needed PRODUCT_STREAMS (StreamAdmissionIT tests that rule)
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-it", "product.recovery.instance-id=it-node",
        "product.recovery.interval=PT10M", "product.epochs.poll-interval=PT0.3S", "product.epochs.stale-serving=serve"})
class StaleServingIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();

    @DynamicPropertySource
    static void resolverUrl(DynamicPropertyRegistry registry) {
        registry.add("product.resolver-url", RESOLVER::baseUrl);
    }

    @AfterAll
    static void close() {
        RESOLVER.close();
    }

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;

    private RestClient client(String token) {
        return TestClients.of(port, token);
    }

    @Test
    void staleDataIsServedWithAWarningWhileTheWorkerRebuilds() {
        StreamId s = new StreamId("acme", "stale-served");
        CatalogHistory h = new CatalogHistory(new Random(8));
        ChainWriter w = new ChainWriter(s, 1, new Random(9));
        List<ChainWriter.Event> events = List.of(w.append(h.upsertItem("a", CatalogHistory.attributes("A", 1, "red"))),
                w.append(h.putRelease("pub", "PUBLIC", Map.of("a", 1))));
        RESOLVER.stream("stale-served").events = events;
        assertThat(client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}").retrieve().toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(200);
        ResponseEntity<JsonNode> fresh = client(null).get().uri("/v1/catalog/acme/stale-served/items/a").retrieve()
                .toEntity(JsonNode.class);
        assertThat(fresh.getStatusCode().value()).isEqualTo(200);
        assertThat(fresh.getHeaders().get("Warning")).isNull();

        RESOLVER.stream("stale-served").epoch = 2;

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ResponseEntity<JsonNode> stale = client(null).get().uri("/v1/catalog/acme/stale-served/items/a")
                    .retrieve().toEntity(JsonNode.class);
            assertThat(stale.getStatusCode().value()).isEqualTo(200);
            assertThat(stale.getHeaders().getFirst("Warning")).isEqualTo(
                    "110 product \"stale: epoch 1 superseded by epoch 2\"");
        });
        JsonNode c = client("op").get().uri("/v1/projection-completeness?tenant=acme&catalog=stale-served")
                .retrieve().body(JsonNode.class);
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("BLOCKED");
        assertThat(c.get("reason").stringValue()).as("%s", c).startsWith("EPOCH_CHANGED: ");
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.sql("SELECT count(*) FROM rebuild WHERE catalog = ?")
                .params("stale-served").query(Long.class).single() > 0);
        assertThat(jdbc.sql("SELECT epoch FROM stream_epoch WHERE catalog = 'stale-served'").query(Long.class)
                .single()).isEqualTo(2);
    }

    /** A history the resolver reports rolled back is served the same way: with a warning, never as current. */
    @Test
    void aRolledBackHistoryIsServedWithAWarning() {
        StreamId s = new StreamId("acme", "stale-rolled");
        CatalogHistory h = new CatalogHistory(new Random(18));
        ChainWriter w = new ChainWriter(s, 1, new Random(19));
        List<ChainWriter.Event> events = List.of(w.append(h.upsertItem("a", CatalogHistory.attributes("A", 1, "red"))),
                w.append(h.putRelease("pub", "PUBLIC", Map.of("a", 1))),
                w.append(h.upsertItem("b", CatalogHistory.attributes("B", 2, "blue"))));
        RESOLVER.stream("stale-rolled").events = events;
        assertThat(client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}").retrieve().toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(200);

        RESOLVER.stream("stale-rolled").events = events.subList(0, 2); // restored without the last event
        RESOLVER.stream("stale-rolled").rolledBack = true;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ResponseEntity<JsonNode> stale = client(null).get().uri("/v1/catalog/acme/stale-rolled/items/a")
                    .retrieve().toEntity(JsonNode.class);
            assertThat(stale.getStatusCode().value()).isEqualTo(200);
            assertThat(stale.getHeaders().getFirst("Warning")).isEqualTo(
                    "110 product \"stale: the history of epoch 1 was rolled back at the resolver\"");
        });
    }
}
