package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.UuidV7;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Chain divergence against both services from their jars. A holder of the relay token delivers two events the
 * resolver never wrote, chained correctly from the resolver's head digest (an item and a PUBLIC release of it): the
 * product's own chain check accepts them and serves the planted item. The recovery worker's comparison with the
 * resolver's digest finds the divergence: completeness BLOCKED {@code CHAIN_DIVERGED} (never CURRENT until the
 * generation is replaced), {@code product_chain_divergences_total} counts it, and a rebuild replaces the generation,
 * after which the planted item is gone and both checksum profiles equal the resolver's. A redelivery of the export
 * position with another digest is then 422 {@code CHAIN_BROKEN}, not a duplicate. On the main line before this
 * change completeness stayed CURRENT and the planted item stayed public.
 */
class ChainDivergenceSystemIT {

    private static final String T = "acme";
    private static final String C = "forged";

    @Test
    void aWellChainedForgedDeliveryIsFoundBlockedAndRebuiltAway() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            sys.startProduct(sys.resolverUrl(), Map.of("SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":"
                    + "{\"resync-interval\":\"PT1S\"},\"recovery\":{\"interval\":\"PT1S\"},"
                    // a slow load keeps the BLOCKED state visible for a few seconds before the cutover
                    + "\"rebuild\":{\"test-pause\":{\"LOADING\":\"PT3S\"}}}}"));
            sys.registerProduct(T, C);
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            for (int i = 0; i < 5; i++) {
                sys.ok("PUT", s + "/items/boot-" + i, "w", "{\"attributes\":{\"name\":\"Boot " + i + "\"}}");
            }
            sys.ok("PUT", s + "/releases/winter", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"boot-1\",\"revision\":1}]}");
            sys.assertConverged(T, C);
            await().atMost(Duration.ofSeconds(30)).until(() -> "CURRENT".equals(completeness(sys).path("state")
                    .stringValue()));
            long servingBefore = servingGeneration(sys);

            JsonNode cursor = sys.ok("GET", s + "/cursor", "op", null);
            long head = cursor.path("position").longValue();
            String item = wire(head + 1, "ItemUpserted", "item", "planted", List.of(), "{\"attributes\":"
                    + "{\"name\":\"Planted\"}}");
            String release = wire(head + 2, "ReleasePublished", "release", "forged", List.of("planted"),
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"planted\",\"revision\":1}]}");
            String d1 = ChainDigest.next(cursor.path("chainDigest").stringValue(), item);
            String d2 = ChainDigest.next(d1, release);
            TwoServices.Response forged = sys.call("POST", sys.productUrl() + "/v1/inbox/events", "r",
                    "{\"events\":[" + EventWire.withDigest(item, d1) + "," + EventWire.withDigest(release, d2) + "]}");
            assertThat(forged.status()).as(forged.body()).isEqualTo(200);
            assertThat(forged.body()).contains("APPLIED").doesNotContain("PARKED");
            String planted = sys.productUrl() + "/v1/catalog/" + T + "/" + C + "/items/planted";
            assertThat(sys.call("GET", planted, null, null).status()).as("the forgery is served").isEqualTo(200);

            // found by the worker's periodic comparison; from then on never CURRENT until the generation is replaced
            List<String> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
                JsonNode c = completeness(sys);
                String state = c.path("state").stringValue();
                boolean replaced = servingGeneration(sys) != servingBefore;
                if (seen.isEmpty() ? state.equals("BLOCKED") : !replaced) {
                    seen.add(state + " " + c.path("reason").stringValue());
                }
                return !seen.isEmpty() && replaced && state.equals("CURRENT");
            });
            // the product's progress report at the forged positions makes the resolver mark the stream rolled back,
            // which the product may learn from the resolver's listing (HISTORY_ROLLED_BACK) before its own cycle
            // finds the divergence; either way BLOCKED, and the divergence is found
            assertThat(seen.get(0)).matches("BLOCKED (CHAIN_DIVERGED|HISTORY_ROLLED_BACK): .*");
            assertThat(seen).anyMatch(v -> v.startsWith("BLOCKED CHAIN_DIVERGED: ") && v.contains("never committed"));
            assertThat(seen).as("BLOCKED until the cutover").allMatch(v -> v.startsWith("BLOCKED CHAIN_DIVERGED")
                    || v.startsWith("BLOCKED HISTORY_ROLLED_BACK"));
            assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.generation "
                    + "WHERE diverged_at IS NOT NULL AND generation_id = " + servingBefore)).isEqualTo(1);
            assertThat(metric(sys, "product_chain_divergences_total")).isEqualTo(1.0);
            assertThat(sys.call("GET", planted, null, null).status()).as("the forgery is gone").isEqualTo(404);
            sys.assertConverged(T, C);

            // the product reported progress at the forged positions, ahead of the resolver's cursor in the same
            // epoch: to the resolver that is a restored (rolled back) history, and it fails closed until an operator
            // rotates the epoch (docs/epochs.md, "A consumer ahead"); the forgery never becomes the resolver's history
            TwoServices.Response after = sys.call("PUT", s + "/items/after", "w",
                    "{\"attributes\":{\"name\":\"After\"}}");
            assertThat(after.status()).as(after.body()).isEqualTo(503);
            assertThat(after.json().path("code").stringValue()).isEqualTo("HISTORY_ROLLED_BACK");
            assertThat(sys.ok("GET", s + "/cursor", "op", null).path("position").longValue()).isEqualTo(head);
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(1);

            // the export position redelivered with another digest: refused, not a duplicate
            long start = TwoServices.scalar(sys.productDb, "SELECT g.start_position FROM product.generation g "
                    + "JOIN product.serving_generation USING (generation_id)");
            assertThat(start).isEqualTo(head);
            String atStart = (String) TwoServices.rows(sys.resolverDb, "SELECT wire FROM resolver.outbox WHERE "
                    + "position = " + start).get(0).get("wire");
            String digest = (String) TwoServices.rows(sys.resolverDb, "SELECT chain_digest FROM resolver.outbox WHERE "
                    + "position = " + start).get(0).get("chain_digest");
            TwoServices.Response tampered = sys.call("POST", sys.productUrl() + "/v1/inbox/events", "r",
                    "{\"events\":[" + EventWire.withDigest(atStart, ChainDigest.next(digest, "x")) + "]}");
            assertThat(tampered.status()).as(tampered.body()).isEqualTo(422);
            assertThat(tampered.json().path("code").stringValue()).isEqualTo("CHAIN_BROKEN");
            TwoServices.Response again = sys.call("POST", sys.productUrl() + "/v1/inbox/events", "r",
                    "{\"events\":[" + EventWire.withDigest(atStart, digest) + "]}");
            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(again.body()).contains("DUPLICATE");
        }
    }

    /** An event's wire exactly as the resolver writes it (member order of its EventAppender). */
    private static String wire(long position, String type, String aggregateType, String id, List<String> items,
            String payload) {
        ObjectNode e = TwoServices.JSON.createObjectNode();
        e.put("tenant", T).put("catalog", C).put("epoch", 1).put("position", position)
                .put("eventId", UuidV7.next().toString()).put("transactionId", UuidV7.next().toString())
                .put("transactionOrdinal", 0).put("transactionCount", 1).put("type", type)
                .put("aggregateType", aggregateType).put("aggregateId", id).put("revision", 1);
        var deps = e.putArray("dependsOn");
        for (String item : items) {
            deps.addObject().put("aggregateType", "item").put("aggregateId", item).put("revision", 1);
        }
        e.put("occurredAt", Instant.now().toString());
        e.set("payload", TwoServices.JSON.readTree(payload));
        return TwoServices.JSON.writeValueAsString(e);
    }

    private static JsonNode completeness(TwoServices sys) throws Exception {
        return sys.ok("GET", sys.productUrl() + "/v1/projection-completeness?tenant=" + T + "&catalog=" + C, "op",
                null);
    }

    private static long servingGeneration(TwoServices sys) throws Exception {
        return TwoServices.scalar(sys.productDb, "SELECT generation_id FROM product.serving_generation");
    }

    private static double metric(TwoServices sys, String name) throws Exception {
        for (String line : sys.call("GET", sys.productUrl() + "/actuator/prometheus", null, null).body().split("\n")) {
            // per instance (docs/metrics.md): this product diverged on this stream only
            if (line.startsWith(name + "{") && !line.contains("catalog=")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " not in the scrape");
    }
}
