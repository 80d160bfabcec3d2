package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.rebuild.RestartRequired;
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
 * Issue 18 part 5 against a fake resolver whose epoch API announces epoch 2 for a stream the product serves in
 * epoch 1: the worker learns it, discards the held events into the audit (PARKED) and starts a rebuild; public
 * serving of the stale generation answers 503 STREAM_FENCED; completeness is BLOCKED EPOCH_CHANGED; a replayed
 * epoch-1 delivery, which the stale generation would otherwise apply, is audited (DELIVERY) and ignored; a catch-up
 * page of epoch 1 is audited (PAGE) and never applied; the audit endpoint lists all of it.
 */
// its deliveries start the stream, as before deliveries needed PRODUCT_STREAMS (StreamAdmissionIT tests that rule)
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-it", "product.recovery.instance-id=it-node",
        "product.recovery.interval=PT10M", "product.epochs.poll-interval=PT10M"})
class EpochChangeIT {

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
    @Autowired
    RecoveryWorker worker;
    @Autowired
    ServingCatchUp catchUp;
    @Autowired
    GenerationRepository generations;
    @Autowired
    WorkerLeases leases;

    private RestClient client(String token) {
        return TestClients.of(port, token);
    }

    private ResponseEntity<JsonNode> deliver(List<ChainWriter.Event> events) {
        return client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}")
                .retrieve().toEntity(JsonNode.class);
    }

    private ResponseEntity<JsonNode> get(String token, String path) {
        return client(token).get().uri(path).retrieve().toEntity(JsonNode.class);
    }

    @Test
    void aNewEpochMakesTheServingGenerationStaleAndEveryOldEpochEventIsAuditedAndIgnored() {
        double oldEpochBefore = scraped(OLD_EPOCH_DELIVERIES);
        StreamId s = new StreamId("acme", "rotated");
        CatalogHistory h = new CatalogHistory(new Random(3));
        ChainWriter w = new ChainWriter(s, 1, new Random(4));
        List<ChainWriter.Event> epoch1 = new java.util.ArrayList<>();
        epoch1.add(w.append(h.upsertItem("a", CatalogHistory.attributes("A", 1, "red"))));
        epoch1.add(w.append(h.putRelease("pub", "PUBLIC", Map.of("a", 1))));
        // waits for item c, which never comes in epoch 1: PARKED
        epoch1.add(w.append(h.putRelease("later", "PUBLIC", Map.of("c", 1))));
        ChainWriter.Event replay = w.append(h.upsertItem("b", CatalogHistory.attributes("B", 2, "blue")));
        RESOLVER.stream("rotated").events = epoch1;
        assertThat(deliver(epoch1).getStatusCode().value()).isEqualTo(200);
        assertThat(get(null, "/v1/catalog/acme/rotated/items/a").getStatusCode().value()).isEqualTo(200);
        long generation = generations.serving(s).orElseThrow().generationId();
        assertThat(held(generation)).isEqualTo(1);

        // the resolver's history was restored and its epoch rotated
        RESOLVER.stream("rotated").epoch = 2;
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.REBUILDING);

        assertThat(held(generation)).as("the parked event of epoch 1 went to the audit").isZero();
        ResponseEntity<JsonNode> served = get(null, "/v1/catalog/acme/rotated/items/a");
        assertThat(served.getStatusCode().value()).as("stale data is not served").isEqualTo(503);
        assertThat(served.getBody().get("code").stringValue()).isEqualTo("STREAM_FENCED");
        assertThat(get(null, "/v1/catalog/acme/rotated/search?q=A").getStatusCode().value()).isEqualTo(503);
        JsonNode c = get("op", "/v1/projection-completeness?tenant=acme&catalog=rotated").getBody();
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("BLOCKED");
        assertThat(c.get("reason").stringValue()).as("%s", c).startsWith("EPOCH_CHANGED: ");

        // a replayed epoch-1 delivery: the stale generation (epoch 1) would apply it; it is audited and ignored
        ResponseEntity<JsonNode> r = deliver(List.of(replay));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        assertThat(r.getBody().get("results").get(0).get("outcome").stringValue()).isEqualTo("IGNORED_OLD_EPOCH");
        assertThat(generations.serving(s).orElseThrow().appliedPosition()).isEqualTo(2);

        // a catch-up page of epoch 1 (read just before the rotation): audited, never applied
        GenerationCursor read = generations.serving(s).orElseThrow();
        WorkerFence fence = leases.hold(s).orElseThrow();
        EventPage page = new EventPage("acme", "rotated", 1, read.chainPosition(), 4, read.chainDigest(),
                replay.chainDigest(), 4, List.of(replay.delivered()));
        assertThatThrownBy(() -> catchUp.applyPage(fence, read, page)).isInstanceOfSatisfying(RestartRequired.class,
                e -> assertThat(e.reason()).isEqualTo(RestartRequired.Reason.PAGE_OF_OLD_EPOCH));
        assertThat(generations.serving(s).orElseThrow()).isEqualTo(read);

        JsonNode audit = get("op", "/v1/audit/old-epoch-deliveries?tenant=acme&catalog=rotated").getBody();
        assertThat(audit.get("deliveries").valueStream().map(d -> d.get("source").stringValue() + " "
                + d.get("epoch").longValue() + " " + d.get("position").longValue()).toList())
                .containsExactly("PAGE 1 4", "DELIVERY 1 4", "PARKED 1 3");
        assertThat(get("c", "/v1/audit/old-epoch-deliveries").getStatusCode().value()).isEqualTo(403);
        assertThat(scraped(OLD_EPOCH_DELIVERIES) - oldEpochBefore).isEqualTo(3.0);
    }

    private long held(long generation) {
        return jdbc.sql("SELECT count(*) FROM held_event WHERE generation_id = ?").params(generation)
                .query(Long.class).single();
    }

    private static final String OLD_EPOCH_DELIVERIES = "product_old_epoch_deliveries_total{application=\"product\"}";

    /** The value of the scraped sample exactly {@code sample} (per-instance counters: compare before and after). */
    private double scraped(String sample) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return text.lines().filter(l -> l.startsWith(sample + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).orElse(0.0);
    }
}
