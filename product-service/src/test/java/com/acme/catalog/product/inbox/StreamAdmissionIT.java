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
 * A delivery never opens a stream on its own. With the relay token (stolen, say) a delivery for a stream that is
 * neither in PRODUCT_STREAMS (listed or by pattern) nor served is refused and leaves nothing behind, so it plants
 * nothing public; nor is one for a matching stream the resolver does not confirm (unknown, or another digest at the
 * delivered position), whether the stream is listed by name or matched by a pattern. A listed or matching stream
 * the resolver confirms starts from its first delivery; a bootstrapped (served) one takes deliveries.
 */
@TestPropertySource(properties = {"test.inbox.any-stream=false", "product.streams=acme/listed,acme/listed-too,initech/*"})
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
        confirmAtResolver(listed);
        ResponseEntity<JsonNode> first = deliver("r", plant(listed));
        assertThat(first.getStatusCode().value()).as("%s", first.getBody()).isEqualTo(200);
        assertThat(get("/v1/catalog/acme/listed/items/planted").getStatusCode().value()).isEqualTo(200);

        StreamId booted = new StreamId("acme", "booted");
        tx.execute(status -> generations.startServingEmpty(booted, 1)); // what a finished rebuild leaves
        ResponseEntity<JsonNode> served = deliver("r", plant(booted));
        assertThat(served.getStatusCode().value()).as("%s", served.getBody()).isEqualTo(200);
        assertThat(get("/v1/catalog/acme/booted/items/planted").getStatusCode().value()).isEqualTo(200);
    }

    /** Named by the operator is not enough: the resolver must have the stream too. */
    @Test
    void aForgedDeliveryForAListedStreamTheResolverDoesNotHaveIsRefusedAndWritesNothing() {
        ResponseEntity<JsonNode> r = deliver("r", plant(new StreamId("acme", "listed-too")));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(404);
        assertThat(r.getBody().path("code").stringValue()).isEqualTo("NOT_FOUND");
        assertNothingWritten("acme", "listed-too");
    }

    @Test
    void aStreamMatchingASubscriptionOpensOnItsFirstDeliveryOnceTheResolverConfirmsIt() {
        StreamId fresh = new StreamId("initech", "fresh");
        confirmAtResolver(fresh);
        ResponseEntity<JsonNode> first = deliver("r", plant(fresh));
        assertThat(first.getStatusCode().value()).as("%s", first.getBody()).isEqualTo(200);
        assertThat(get("/v1/catalog/initech/fresh/items/planted").getStatusCode().value()).isEqualTo(200);
    }

    @Test
    void aForgedDeliveryForAMatchingStreamTheResolverDoesNotHaveIsRefusedAndWritesNothing() {
        // a valid relay token and a self-consistent chain, but the resolver never had the stream
        StreamId unknown = new StreamId("initech", "unknown");
        ResponseEntity<JsonNode> r = deliver("r", plant(unknown));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(404);
        assertThat(r.getBody().path("code").stringValue()).isEqualTo("NOT_FOUND");
        assertNothingWritten("initech", "unknown");
    }

    @Test
    void aDeliveryWhoseDigestIsNotTheResolversIsRefusedAndWritesNothing() {
        StreamId other = new StreamId("initech", "mismatch");
        RESOLVER.knowDigest(other, 1, 2, "0".repeat(63) + "1");
        ResponseEntity<JsonNode> r = deliver("r", plant(other));
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(422);
        assertThat(r.getBody().path("code").stringValue()).isEqualTo("CHAIN_BROKEN");
        assertNothingWritten("initech", "mismatch");
    }

    private void assertNothingWritten(String tenant, String catalog) {
        assertThat(jdbc.sql("SELECT count(*) FROM generation WHERE tenant = ? AND catalog = ?")
                .params(tenant, catalog).query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM serving_generation WHERE tenant = ? AND catalog = ?")
                .params(tenant, catalog).query(Long.class).single()).isZero();
        assertThat(get("/v1/catalog/" + tenant + "/" + catalog + "/items/planted").getStatusCode().value())
                .isEqualTo(404);
    }

    /** What the resolver answers for a stream it has: its digest at the planted chain's last position. */
    private static void confirmAtResolver(StreamId s) {
        List<Event> chain = chain(s);
        Event last = chain.get(chain.size() - 1);
        RESOLVER.knowDigest(s, last.epoch(), last.position(), last.chainDigest());
    }

    /** An item and a PUBLIC release of it, well chained from position 1. */
    private static List<String> plant(StreamId s) {
        return InboxDeliveryIT.delivered(chain(s), 0, 1);
    }

    private static List<Event> chain(StreamId s) {
        CatalogHistory h = new CatalogHistory(new Random(16));
        return new ChainWriter(s, 1, new Random(16)).appendAll(List.of(
                h.upsertItem("planted", CatalogHistory.attributes("Forged", 1, "red")),
                h.putRelease("forged", "PUBLIC", Map.of("planted", 1))));
    }
}
