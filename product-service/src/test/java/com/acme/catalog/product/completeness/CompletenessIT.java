package com.acme.catalog.product.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** Completeness follows the serving generation: CURRENT, CATCHING_UP on a gap, BLOCKED on parked events. */
class CompletenessIT extends ProductIT {

    @Test
    void stateFollowsTheServingGeneration() {
        assertThat(completeness("fresh").get("state").stringValue()).isEqualTo("BLOCKED");
        assertThat(completeness("fresh").get("reason").stringValue()).isEqualTo("NO_SERVING_GENERATION");

        StreamId stream = new StreamId("acme", "fresh");
        CatalogHistory h = new CatalogHistory(new Random(3));
        ChainWriter chain = new ChainWriter(stream, 1, new Random(4));
        List<ChainWriter.Event> first = chain.appendAll(h.random(20));
        ok(deliver("r", first.stream().map(ChainWriter.Event::delivered).toList()));
        JsonNode c = completeness("fresh");
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("CURRENT");
        assertThat(c.get("verifiedThrough").longValue()).isEqualTo(first.size());
        assertThat(c.get("observedSourceBoundary").longValue()).isEqualTo(first.size());
        assertThat(c.get("lastSuccessfulVerification").isString()).isTrue();
        assertThat(c.get("worker").get("alive").booleanValue()).isFalse();

        ChainWriter.Event skipped = chain.append(h.upsertItem("gap-1", CatalogHistory.attributes("Gap", 1, "red")));
        ChainWriter.Event after = chain.append(h.upsertItem("gap-2", CatalogHistory.attributes("Gap", 2, "red")));
        ok(deliver("r", List.of(after.delivered())));
        c = completeness("fresh");
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("CATCHING_UP");
        assertThat(c.get("verifiedThrough").longValue()).isEqualTo(first.size());
        assertThat(c.get("observedSourceBoundary").longValue()).isEqualTo(after.position());

        ok(deliver("r", List.of(skipped.delivered())));
        assertThat(completeness("fresh").get("state").stringValue()).isEqualTo("CURRENT");

        ChainWriter.Event waits = chain.append(h.putRelease("r-ghost", "PUBLIC", Map.of("ghost", 1)));
        ok(deliver("r", List.of(waits.delivered())));
        c = completeness("fresh");
        assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("BLOCKED");
        assertThat(c.get("reason").stringValue()).startsWith("PARKED_EVENTS");
        assertThat(c.get("verifiedThrough").longValue()).isEqualTo(after.position());

        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).containsPattern("product_completeness_state\\{[^}]*catalog=\"fresh\"[^}]*\\} 3");
    }

    @Test
    void aFailedRebuildWithoutServingGenerationIsBlockedAndBadRequestsAreProblems() {
        jdbc.sql("""
                INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, error)
                VALUES ('01900000-0000-7000-8000-000000000001', 'acme', 'broken', 'FAILED', 'export FAILED')
                """).update();
        JsonNode c = completeness("broken");
        assertThat(c.get("state").stringValue()).isEqualTo("BLOCKED");
        assertThat(c.get("reason").stringValue()).isEqualTo("REBUILD_FAILED: export FAILED");

        assertThat(client("op").get().uri("/v1/projection-completeness?tenant=acme").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(400);
        assertThat(client("r").get().uri("/v1/projection-completeness?tenant=acme&catalog=x").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(403);
    }

    private JsonNode completeness(String catalog) {
        ResponseEntity<JsonNode> r = client("op").get()
                .uri("/v1/projection-completeness?tenant=acme&catalog={c}", catalog).retrieve()
                .toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        return r.getBody();
    }

    private static void ok(ResponseEntity<JsonNode> r) {
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
    }
}
