package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** Refused deliveries: the right problem+json code, and not one row written anywhere. */
class InboxInputIT extends ProductIT {

    private static final String TABLES = """
            SELECT (SELECT count(*) FROM generation) + (SELECT count(*) FROM serving_generation)
                 + (SELECT count(*) FROM item) + (SELECT count(*) FROM aggregate_revision)
                 + (SELECT count(*) FROM inbox) + (SELECT count(*) FROM held_event)
                 + (SELECT count(*) FROM old_epoch_delivery) + (SELECT count(*) FROM public_item)
            """;

    private final StreamId acme = new StreamId("acme", "input");
    private final List<Event> chain = new ChainWriter(acme, 1, new Random(9)).appendAll(List.of(
            new CatalogHistory(new Random(9)).upsertItem("sku-1", CatalogHistory.attributes("Café crème", 4, "x"))));
    private final String good = chain.get(0).delivered();

    @Test
    void tokensAndRoles() {
        assertRefused(401, "UNAUTHENTICATED", deliver(null, List.of(good)));
        assertRefused(401, "UNAUTHENTICATED", deliver("nope", List.of(good)));
        assertRefused(403, "FORBIDDEN", deliver("w", List.of(good)));
        assertRefused(403, "FORBIDDEN", deliver("op", List.of(good)));
        StreamId other = new StreamId("globex", "input");
        List<Event> foreign = new ChainWriter(other, 1, new Random(9)).appendAll(List.of(
                new CatalogHistory(new Random(9)).upsertItem("sku-1", CatalogHistory.attributes("x", 1, "y"))));
        assertRefused(403, "FORBIDDEN", deliver("r-acme", List.of(foreign.get(0).delivered())));
        assertThat(deliver("r-acme", List.of(good)).getStatusCode().value()).isEqualTo(200);
    }

    @Test
    void malformedBodies() {
        for (String body : List.of("", "not json", "[]", "{}", "{\"events\":[]}", "{\"events\":{}}",
                "{\"events\":[1]}", "{\"events\":[" + good + "]} trailing", "{\"events\":[" + good + "],\"events\":[]}",
                "{\"events\":[" + good + "]", "{\"events\":[" + good + "] extra}")) {
            assertRefused(400, "INVALID_BODY", postRaw("r", body), body);
        }
        ResponseEntity<JsonNode> notUtf8 = client("r").post().uri("/v1/inbox/events")
                .contentType(MediaType.APPLICATION_JSON).body(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'})
                .retrieve().toEntity(JsonNode.class);
        assertRefused(400, "INVALID_BODY", notUtf8);
    }

    @Test
    void malformedEvents() {
        String wire = chain.get(0).wire();
        String digest = chain.get(0).chainDigest();
        Map<String, String> cases = Map.of(
                "no digest suffix", wire,
                "uppercase digest", EventWire.withDigest(wire, digest.toUpperCase()),
                "invalid tenant", EventWire.withDigest(wire.replace("\"tenant\":\"acme\"", "\"tenant\":\"Acme!\""),
                        digest),
                "position 0", EventWire.withDigest(wire.replace("\"position\":1,", "\"position\":0,"), digest),
                "bad event id", EventWire.withDigest(wire.replaceFirst("\"eventId\":\"[^\"]+\"", "\"eventId\":\"x\""),
                        digest),
                "aggregate mismatch", EventWire.withDigest(wire.replace("\"aggregateType\":\"item\"",
                        "\"aggregateType\":\"release\""), digest),
                "invalid item id", EventWire.withDigest(wire.replace("\"aggregateId\":\"sku-1\"",
                        "\"aggregateId\":\"sku 1\""), digest),
                "attributes missing", EventWire.withDigest(wire.replace("\"attributes\"", "\"attrs\""), digest),
                "depends on itself", EventWire.withDigest(wire.replace("\"dependsOn\":[]",
                        "\"dependsOn\":[{\"aggregateType\":\"item\",\"aggregateId\":\"sku-1\",\"revision\":1}]"),
                        digest));
        cases.forEach((what, element) -> assertRefused(422, "INVALID_EVENT", deliver("r", List.of(good, element)),
                what));
        StreamId other = new StreamId("acme", "other");
        List<Event> two = new ChainWriter(other, 1, new Random(9)).appendAll(List.of(
                new CatalogHistory(new Random(9)).upsertItem("sku-1", CatalogHistory.attributes("x", 1, "y"))));
        assertRefused(422, "INVALID_EVENT", deliver("r", List.of(good, two.get(0).delivered())), "two streams");
    }

    @Test
    void oversizedDeliveries() {
        String big = "{\"events\":[" + good + "],\"padding\":\"" + "x".repeat(1_100_000) + "\"}";
        ResponseEntity<JsonNode> r = postRaw("r", big);
        assertThat(r.getStatusCode().value()).isEqualTo(413);
        assertThat(r.getBody().get("code").stringValue()).isEqualTo("PAYLOAD_TOO_LARGE");
        assertNothingWritten();
    }

    private void assertRefused(int status, String code, ResponseEntity<JsonNode> r) {
        assertRefused(status, code, r, "");
    }

    private void assertRefused(int status, String code, ResponseEntity<JsonNode> r, String what) {
        assertThat(r.getStatusCode().value()).as("%s: %s", what, r.getBody()).isEqualTo(status);
        assertThat(r.getHeaders().getContentType().toString()).as(what).startsWith("application/problem+json");
        assertThat(r.getBody().get("code").stringValue()).as(what).isEqualTo(code);
        assertNothingWritten();
    }

    private void assertNothingWritten() {
        long rows = jdbc.sql(TABLES).query(Long.class).single();
        // the one accepted delivery wrote five rows: generation, pointer, item, revision, inbox
        long allowed = jdbc.sql("SELECT count(*) FROM serving_generation WHERE tenant = 'acme' AND catalog = 'input'")
                .query(Long.class).single() == 0 ? 0 : 5;
        assertThat(rows).as("rows written by refused deliveries").isEqualTo(allowed);
    }
}
