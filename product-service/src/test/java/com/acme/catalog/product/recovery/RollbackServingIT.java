package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.TestClients;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
 * What public readers see when the resolver reports a stream's history rolled back, and right after maintenance-off
 * (issue 31, docs/epochs.md "What readers see after a rollback"). Against a fake resolver whose listing says
 * {@code rolledBack}; the sweeps run on the test's thread (their schedules are an hour):
 * <ul>
 *   <li>the rollback poll records it and every read of a generation holding the lost tail is 503
 *       HISTORY_ROLLED_BACK, kept items included; a generation at exactly the restored head is served; the gauge
 *       counts the stream; a rotation (the listing's epoch 2, no longer rolled back) clears it and the old
 *       generation is STREAM_FENCED;</li>
 *   <li>turning maintenance off learns an epoch rotated meanwhile first: the very next read is STREAM_FENCED, not
 *       the old epoch's data; when the resolver cannot be listed, maintenance stays on.</li>
 * </ul>
 */
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-rb", "product.recovery.instance-id=rb",
        "product.recovery.interval=PT1H", "product.epochs.poll-interval=PT1H", "product.rollbacks.poll=PT1H"})
class RollbackServingIT {

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
    StreamSweep sweep;

    @AfterEach
    void resolverAnswers() {
        RESOLVER.listingAnswer = 200;
        maintenance(false);
    }

    @Test
    void aRolledBackHistoryIsRefusedUnlessTheGenerationStandsAtTheRestoredHead() {
        // "lost" holds four events, the last two (item lost, its public release) only in the tail the resolver lost
        List<ChainWriter.Event> lost = history("rb-lost");
        assertThat(deliver(lost)).isEqualTo(200);
        assertThat(item("rb-lost", "lost").getStatusCode().value()).isEqualTo(200);
        // "kept" was applied only as far as the restore reached
        List<ChainWriter.Event> kept = history("rb-kept");
        assertThat(deliver(kept.subList(0, 2))).isEqualTo(200);
        assertThat(item("rb-kept", "kept").getStatusCode().value()).isEqualTo(200);
        for (String catalog : List.of("rb-lost", "rb-kept")) {
            RESOLVER.stream(catalog).events = (catalog.equals("rb-lost") ? lost : kept).subList(0, 2);
            RESOLVER.stream(catalog).rolledBack = true;
        }

        assertThat(sweep.sweepRollbacks()).as("both recorded").isEqualTo(2);
        for (String id : List.of("lost", "kept")) {
            ResponseEntity<JsonNode> refused = item("rb-lost", id);
            assertThat(refused.getStatusCode().value()).as(id).isEqualTo(503);
            assertThat(refused.getBody().path("code").stringValue()).isEqualTo("HISTORY_ROLLED_BACK");
            assertThat(refused.getBody().path("detail").stringValue()).contains("rolled back to position 2");
        }
        ResponseEntity<JsonNode> search = client(null).get().uri("/v1/catalog/acme/rb-lost/search?q=lost").retrieve()
                .toEntity(JsonNode.class);
        assertThat(search.getStatusCode().value()).isEqualTo(503);
        assertThat(item("rb-kept", "kept").getStatusCode().value()).as("at the restored head: only history that "
                + "still exists").isEqualTo(200);
        assertThat(metric("product_streams_rolled_back")).isEqualTo(2.0);
        JsonNode blocked = client("op").get().uri("/v1/projection-completeness?tenant=acme&catalog=rb-lost").retrieve()
                .body(JsonNode.class);
        assertThat(blocked.path("state").stringValue()).as("%s", blocked).isEqualTo("BLOCKED");
        // (or CHAIN_DIVERGED once the cycle the poll asked for found the product ahead: divergence is reported first)
        assertThat(blocked.path("reason").stringValue()).as("%s", blocked)
                .matches("(HISTORY_ROLLED_BACK: .* rolled back to position 2|CHAIN_DIVERGED: ).*");
        assertThat(sweep.sweepRollbacks()).as("already known: nothing written again").isZero();

        // rotated: listed in epoch 2, not rolled back; the sweep learns the epoch and forgets the rollback
        RESOLVER.stream("rb-lost").epoch = 2;
        RESOLVER.stream("rb-lost").rolledBack = false;
        sweep.sweep();
        assertThat(metric("product_streams_rolled_back")).isEqualTo(1.0);
        ResponseEntity<JsonNode> fenced = item("rb-lost", "kept");
        assertThat(fenced.getStatusCode().value()).isEqualTo(503);
        assertThat(fenced.getBody().path("code").stringValue()).isEqualTo("STREAM_FENCED");
        assertThat(jdbc.sql("SELECT count(*) FROM stream_rollback WHERE catalog = 'rb-lost'").query(Long.class)
                .single()).isZero();
    }

    @Test
    void maintenanceOffLearnsTheEpochsRotatedMeanwhileBeforeTheFirstRead() {
        List<ChainWriter.Event> h = history("rb-maint");
        assertThat(deliver(h)).isEqualTo(200);
        RESOLVER.stream("rb-maint").events = h;
        sweep.sweep();
        assertThat(item("rb-maint", "kept").getStatusCode().value()).isEqualTo(200);

        maintenance(true);
        RESOLVER.stream("rb-maint").epoch = 2; // rotated during maintenance; no sweep ran since
        RESOLVER.listingAnswer = 503;
        ResponseEntity<JsonNode> stays = client("op").post().uri("/v1/admin/maintenance")
                .contentType(MediaType.APPLICATION_JSON).body("{\"enabled\":false}").retrieve()
                .toEntity(JsonNode.class);
        assertThat(stays.getStatusCode().value()).as("the resolver cannot be listed").isEqualTo(503);
        assertThat(stays.getBody().path("code").stringValue()).isEqualTo("MAINTENANCE");
        assertThat(stays.getBody().path("detail").stringValue()).contains("maintenance stays on");
        assertThat(client("op").get().uri("/v1/admin/maintenance").retrieve().body(JsonNode.class).path("enabled")
                .booleanValue()).isTrue();

        RESOLVER.listingAnswer = 200;
        assertThat(maintenance(false).path("enabled").booleanValue()).isFalse();
        ResponseEntity<JsonNode> first = item("rb-maint", "kept");
        assertThat(first.getStatusCode().value()).as("the first read after maintenance-off").isEqualTo(503);
        assertThat(first.getBody().path("code").stringValue()).isEqualTo("STREAM_FENCED");
        assertThat(jdbc.sql("SELECT epoch FROM stream_epoch WHERE catalog = 'rb-maint'").query(Long.class).single())
                .isEqualTo(2);
    }

    /** Item "kept" and a release of it, then item "lost" and a release of both: four events. */
    private static List<ChainWriter.Event> history(String catalog) {
        CatalogHistory h = new CatalogHistory(new Random(catalog.hashCode()));
        ChainWriter w = new ChainWriter(new StreamId("acme", catalog), 1, new Random(catalog.hashCode() + 1));
        return List.of(w.append(h.upsertItem("kept", CatalogHistory.attributes("Kept", 1, "red"))),
                w.append(h.putRelease("pub", "PUBLIC", Map.of("kept", 1))),
                w.append(h.upsertItem("lost", CatalogHistory.attributes("Lost", 2, "blue"))),
                w.append(h.putRelease("pub2", "PUBLIC", Map.of("kept", 1, "lost", 1))));
    }

    private ResponseEntity<JsonNode> item(String catalog, String id) {
        return client(null).get().uri("/v1/catalog/acme/{c}/items/{id}", catalog, id).retrieve()
                .toEntity(JsonNode.class);
    }

    private JsonNode maintenance(boolean enabled) {
        ResponseEntity<JsonNode> r = client("op").post().uri("/v1/admin/maintenance")
                .contentType(MediaType.APPLICATION_JSON).body("{\"enabled\":" + enabled + "}").retrieve()
                .toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        return r.getBody();
    }

    private int deliver(List<ChainWriter.Event> events) {
        return client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}")
                .retrieve().toBodilessEntity().getStatusCode().value();
    }

    private double metric(String name) {
        String scrape = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return scrape.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .orElseThrow(() -> new AssertionError(name + " not in the scrape"));
    }

    private RestClient client(String token) {
        return TestClients.of(port, token);
    }
}
