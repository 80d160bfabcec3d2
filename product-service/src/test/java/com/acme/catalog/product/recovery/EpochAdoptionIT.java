package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.recovery.RecoveryWorker.Outcome;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;
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
 * Adoption of a new epoch in place (docs/epochs.md "The product"), against a fake resolver whose epoch API says
 * where the new epoch starts: a stream whose serving generation applied exactly (epoch 1, P, digest at P) moves to
 * position 0 of epoch 2 in one transaction, serves at once, registers in epoch 2, takes epoch 2's events from
 * position 1 and is counted, with no rebuild row; a stream one event ahead, one behind, with another digest at P,
 * of another epoch than the start's, after a reset or with the start unknown is rebuilt as before, and stays fenced.
 */
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-adoption-it", "product.recovery.instance-id=adoption-node",
        "product.recovery.interval=PT10M", "product.epochs.poll-interval=PT10M"})
class EpochAdoptionIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();
    private static final String ADOPTIONS = "product_epoch_adoptions_total{application=\"product\"}";

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
    GenerationRepository generations;

    /** A stream of epoch 1 with an item and a PUBLIC release, delivered and served: the product at position 2. */
    private List<ChainWriter.Event> served(String catalog, CatalogHistory h) {
        StreamId s = new StreamId("acme", catalog);
        ChainWriter w = new ChainWriter(s, 1, new Random(catalog.hashCode()));
        List<ChainWriter.Event> epoch1 = new ArrayList<>();
        epoch1.add(w.append(h.upsertItem("a", CatalogHistory.attributes("A", 1, "red"))));
        epoch1.add(w.append(h.putRelease("pub", "PUBLIC", Map.of("a", 1))));
        RESOLVER.stream(catalog).events = epoch1;
        assertThat(deliver(epoch1).getStatusCode().value()).isEqualTo(200);
        assertThat(get(null, "/v1/catalog/acme/" + catalog + "/items/a").getStatusCode().value()).isEqualTo(200);
        assertThat(generations.serving(s).orElseThrow().appliedPosition()).isEqualTo(2);
        return epoch1;
    }

    /** The resolver restored and rotated: epoch {@code epoch} opened at 0, starting from {@code startsFrom}. */
    private static void rotate(String catalog, long epoch, String startsFrom) {
        FakeCatchUpResolver.Stream f = RESOLVER.stream(catalog);
        f.events = List.of();
        f.startsFrom = startsFrom;
        f.epoch = epoch;
    }

    private static String startsFrom(long epoch, long position, String digest) {
        return "{\"epoch\":" + epoch + ",\"position\":" + position + ",\"chainDigest\":\"" + digest
                + "\",\"empty\":false}";
    }

    @Test
    void aProjectionExactlyWhereTheNewEpochStartsIsAdoptedInPlaceAndServesAtOnce() {
        StreamId s = new StreamId("acme", "kept");
        CatalogHistory h = new CatalogHistory(new Random(11));
        List<ChainWriter.Event> epoch1 = served("kept", h);
        GenerationCursor before = generations.serving(s).orElseThrow();
        double adoptionsBefore = scraped(ADOPTIONS);

        rotate("kept", 2, startsFrom(1, 2, epoch1.get(1).chainDigest()));
        assertThat(worker.cycle(s, Trigger.EPOCH_MISMATCH)).isEqualTo(Outcome.ADOPTED);

        GenerationCursor after = generations.serving(s).orElseThrow();
        assertThat(after.generationId()).as("the same generation, no rebuild").isEqualTo(before.generationId());
        assertThat(List.of(after.epoch(), after.appliedPosition(), after.chainPosition())).containsExactly(2L, 0L, 0L);
        assertThat(after.chainDigest()).as("epoch 2's chain starts over at 64 zeros").isEqualTo(ChainDigest.ZERO);
        assertThat(rebuilds("kept")).isZero();
        assertThat(RESOLVER.stream("kept").registeredEpochs).contains(2L);
        assertThat(scraped(ADOPTIONS) - adoptionsBefore).isEqualTo(1.0);
        ResponseEntity<JsonNode> item = get(null, "/v1/catalog/acme/kept/items/a");
        assertThat(item.getStatusCode().value()).as("served at once: %s", item.getBody()).isEqualTo(200);

        // epoch 2 goes on from position 1: the live inbox applies it (epoch 1's inbox rows are gone)
        ChainWriter w2 = new ChainWriter(s, 2, new Random(12));
        ChainWriter.Event next = w2.append(h.upsertItem("b", CatalogHistory.attributes("B", 2, "blue")));
        RESOLVER.stream("kept").events = List.of(next);
        ResponseEntity<JsonNode> r = deliver(List.of(next));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        assertThat(r.getBody().get("results").get(0).get("outcome").stringValue()).isEqualTo("APPLIED");
        assertThat(worker.cycle(s, Trigger.CONTINUE)).isEqualTo(Outcome.CURRENT);
        JsonNode c = get("op", "/v1/projection-completeness?tenant=acme&catalog=kept").getBody();
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("CURRENT");
        assertThat(rebuilds("kept")).isZero();
    }

    @Test
    void aProjectionNotProvenEqualToTheStartIsRebuiltAndStaysFenced() {
        String other = "b".repeat(64);
        Map<String, Function<List<ChainWriter.Event>, String>> cases = new LinkedHashMap<>();
        cases.put("ahead", e -> startsFrom(1, 1, e.get(0).chainDigest()));
        cases.put("behind", e -> startsFrom(1, 3, other));
        cases.put("digest", e -> startsFrom(1, 2, other));
        cases.put("reset", e -> "{\"epoch\":null,\"position\":0,\"chainDigest\":\"" + ChainDigest.ZERO
                + "\",\"empty\":true}");
        cases.put("unknown", e -> null);
        cases.put("other-epoch", e -> startsFrom(2, 2, e.get(1).chainDigest()));
        double adoptionsBefore = scraped(ADOPTIONS);
        cases.forEach((catalog, start) -> {
            StreamId s = new StreamId("acme", catalog);
            List<ChainWriter.Event> epoch1 = served(catalog, new CatalogHistory(new Random(21)));
            long generation = generations.serving(s).orElseThrow().generationId();
            rotate(catalog, catalog.equals("other-epoch") ? 3 : 2, start.apply(epoch1));

            assertThat(worker.cycle(s, Trigger.EPOCH_MISMATCH)).as(catalog).isEqualTo(Outcome.REBUILDING);
            GenerationCursor g = generations.serving(s).orElseThrow();
            assertThat(List.of(g.generationId(), g.epoch(), g.appliedPosition())).as(catalog)
                    .containsExactly(generation, 1L, 2L);
            assertThat(rebuilds(catalog)).as(catalog).isEqualTo(1);
            ResponseEntity<JsonNode> item = get(null, "/v1/catalog/acme/" + catalog + "/items/a");
            assertThat(item.getStatusCode().value()).as(catalog).isEqualTo(503);
            assertThat(item.getBody().get("code").stringValue()).as(catalog).isEqualTo("STREAM_FENCED");
        });
        assertThat(scraped(ADOPTIONS) - adoptionsBefore).isZero();
    }

    private long rebuilds(String catalog) {
        return jdbc.sql("SELECT count(*) FROM rebuild WHERE tenant = 'acme' AND catalog = ?").params(catalog)
                .query(Long.class).single();
    }

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

    private double scraped(String sample) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return text.lines().filter(l -> l.startsWith(sample + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).orElse(0.0);
    }
}
