package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Issue 16 part 2: a delivery never opens a stream. With the relay token (stolen, say) a delivery for a stream that
 * is neither in PRODUCT_STREAMS nor served is refused and leaves nothing behind, so it plants nothing public; a
 * listed stream starts from its first delivery, a bootstrapped (served) one takes deliveries.
 */
@TestPropertySource(properties = {"test.inbox.any-stream=false", "product.streams=acme/listed"})
class StreamAdmissionIT extends ProductIT {

    @Autowired
    GenerationRepository generations;
    @Autowired
    TransactionTemplate tx;
    @Autowired
    MeterRegistry meters;

    @Test
    void aDeliveryForAStreamNeitherListedNorServedIsRefusedAndPlantsNothing() {
        StreamId forged = new StreamId("globex", "forged");
        ResponseEntity<JsonNode> r = deliver("r", plant(forged));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(404);
        assertThat(r.getBody().path("code").stringValue()).isEqualTo("NOT_FOUND");
        assertThat(jdbc.sql("SELECT count(*) FROM generation WHERE tenant = 'globex'").query(Long.class).single())
                .isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM serving_generation WHERE tenant = 'globex'").query(Long.class)
                .single()).isZero();
        assertThat(get("/v1/catalog/globex/forged/items/planted").getStatusCode().value()).isEqualTo(404);
        assertThat(meters.get("product.inbox.refused.unknown.stream").counter().count()).isPositive();
    }

    @Test
    void aListedStreamStartsFromItsFirstDeliveryAndABootstrappedOneTakesDeliveries() {
        StreamId listed = new StreamId("acme", "listed");
        ResponseEntity<JsonNode> first = deliver("r", plant(listed));
        assertThat(first.getStatusCode().value()).as("%s", first.getBody()).isEqualTo(200);
        assertThat(get("/v1/catalog/acme/listed/items/planted").getStatusCode().value()).isEqualTo(200);

        StreamId booted = new StreamId("acme", "booted");
        tx.execute(status -> generations.startServingEmpty(booted, 1)); // what a finished rebuild leaves
        ResponseEntity<JsonNode> served = deliver("r", plant(booted));
        assertThat(served.getStatusCode().value()).as("%s", served.getBody()).isEqualTo(200);
        assertThat(get("/v1/catalog/acme/booted/items/planted").getStatusCode().value()).isEqualTo(200);
    }

    /** An item and a PUBLIC release of it, well chained from position 1. */
    private static List<String> plant(StreamId s) {
        CatalogHistory h = new CatalogHistory(new Random(16));
        List<Event> chain = new ChainWriter(s, 1, new Random(16)).appendAll(List.of(
                h.upsertItem("planted", CatalogHistory.attributes("Forged", 1, "red")),
                h.putRelease("forged", "PUBLIC", Map.of("planted", 1))));
        return InboxDeliveryIT.delivered(chain, 0, 1);
    }
}
