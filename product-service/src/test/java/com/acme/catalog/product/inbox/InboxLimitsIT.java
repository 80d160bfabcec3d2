package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The product consumes whatever the resolver's limits allow: a delivery of one event whose wire is exactly
 * {@link JsonLimits#MAX_EVENT_WIRE_BYTES} (so the body is over the general 1 MiB cap) is applied; a body over
 * {@link JsonLimits#MAX_DELIVERY_BYTES} is still 413. And the public reads refuse a {@code %00} in a query cleanly.
 */
class InboxLimitsIT extends ProductIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void oneEventOfTheLargestWireIsAppliedAndABodyPastTheDeliveryLimitIsNot() {
        StreamId s = new StreamId("acme", "largest");
        Event event = eventOfWireBytes(s, JsonLimits.MAX_EVENT_WIRE_BYTES);
        assertThat(JsonLimits.utf8Length(event.wire())).isEqualTo(JsonLimits.MAX_EVENT_WIRE_BYTES);

        String over = "{\"events\":[" + event.delivered() + "]}";
        over = over + " ".repeat(JsonLimits.MAX_DELIVERY_BYTES + 1 - over.length());
        ResponseEntity<JsonNode> refused = postRaw("r", over);
        assertThat(refused.getStatusCode().value()).isEqualTo(413);
        assertThat(refused.getBody().path("code").stringValue()).isEqualTo("PAYLOAD_TOO_LARGE");
        assertThat(jdbc.sql("SELECT count(*) FROM inbox").query(Long.class).single()).isZero();

        ResponseEntity<JsonNode> applied = deliver("r", List.of(event.delivered()));
        assertThat(applied.getStatusCode().value()).as("%s", applied.getBody()).isEqualTo(200);
        assertThat(applied.getBody().path("results").get(0).path("outcome").stringValue()).isEqualTo("APPLIED");
        assertThat(applied.getBody().path("contiguousPosition").longValue()).isEqualTo(1);
    }

    @Test
    void aNulInASearchQueryIs400() throws Exception {
        HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://localhost:" + port + "/v1/catalog/acme/largest/search?q=a%00b")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(400);
        assertThat(res.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(JSON.readTree(res.body()).path("code").stringValue()).isEqualTo("INVALID_BODY");
    }

    /** An item event padded (an array of 7-digit numbers, then a string) to exactly {@code bytes} of wire. */
    private static Event eventOfWireBytes(StreamId s, int bytes) {
        long base = JsonLimits.utf8Length(build(s, 0, "").wire());
        long room = bytes - base;
        int numbers = (int) ((room - 1) / 8); // "1234567," each, the last without a comma, the key "n" already there
        long left = room - (numbers == 0 ? 0 : numbers * 8L - 1);
        Event e = build(s, numbers, "x".repeat((int) left));
        return e;
    }

    private static Event build(StreamId s, int numbers, String pad) {
        ObjectNode attributes = JSON.createObjectNode();
        attributes.put("name", "largest");
        attributes.put("pad", pad);
        var n = attributes.putArray("n");
        for (int i = 0; i < numbers; i++) {
            n.add(1234567);
        }
        return new ChainWriter(s, 1, new Random(5)).append(new CatalogHistory(new Random(5))
                .upsertItem("sku-1", attributes));
    }
}
