package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Both services from their jars: writes on the resolver reach the product's public API through the relay, the
 * product's copy of accepted state and its public view end equal to the resolver's (both checksum profiles), and
 * its durable progress reaches the head.
 * Then the product is killed (SIGKILL) after committing deliveries but before it could report progress (its
 * reports go nowhere): after a restart the resolver's durable progress catches up, and a forced full
 * redelivery applies nothing twice.
 */
class LiveProjectionSystemIT {

    private static final String T = "acme";
    private static final String C = "shoes";

    @Test
    void writesReachTheProductAndACrashBeforeTheProgressReportLosesNothing() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            sys.ok("PUT", s + "/items/seed", "w", "{\"attributes\":{\"name\":\"seed\"}}");
            // this first product instance reports its progress as another consumer: product-1, which the relay
            // delivers to, hears nothing from it (it still reaches the resolver, which confirms the stream it opens)
            sys.startProduct(sys.resolverUrl(), java.util.Map.of("PRODUCT_CONSUMER_ID", "product-unreported"));
            sys.registerProduct(T, C);

            long seed = System.nanoTime();
            Random random = new Random(seed);
            for (int i = 0; i < 60; i++) {
                String id = "sku-" + random.nextInt(15);
                sys.ok("PUT", s + "/items/" + id, "w", "{\"attributes\":{\"name\":\"Trail runner " + i
                        + "\",\"price\":" + (100 + i) + "}}");
            }
            JsonNode item = sys.ok("PUT", s + "/items/hero", "w", "{\"attributes\":{\"name\":\"Hero boot\"}}");
            sys.ok("PUT", s + "/releases/spring", "w", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"hero\","
                    + "\"revision\":" + item.path("revision").intValue() + "}]}");
            sys.ok("PUT", s + "/items/secret", "w", "{\"attributes\":{\"name\":\"Secret boot\"}}");
            sys.ok("PUT", s + "/releases/internal", "w", "{\"visibility\":\"PRIVATE\",\"items\":[{\"itemId\":"
                    + "\"secret\",\"revision\":1}]}");
            long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();

            String catalog = sys.productUrl() + "/v1/catalog/" + T + "/" + C;
            await().atMost(Duration.ofSeconds(30)).until(() -> sys.call("GET", catalog + "/items/hero", null, null)
                    .status() == 200);
            assertThat(sys.call("GET", catalog + "/items/secret", null, null).status()).isEqualTo(404);
            JsonNode hits = sys.ok("GET", catalog + "/search?q=hero", null, null).path("hits");
            assertThat(hits).extracting(h -> h.path("itemId").stringValue()).containsExactly("hero");

            await().atMost(Duration.ofSeconds(30)).until(() -> appliedPosition(sys) == head);
            assertThat(productState(sys)).as("seed %d", seed).isEqualTo(resolverState(sys));
            sys.assertConverged(T, C);
            // committed in the product, but never reported: the resolver still retains everything for it
            assertThat(durableProgress(sys)).isZero();

            sys.product.kill();
            sys.startProduct(sys.resolverUrl());
            await().atMost(Duration.ofSeconds(30)).until(() -> durableProgress(sys) == head);

            // force the relay to deliver everything again: every position answers DUPLICATE, nothing re-applies
            try (var c = sys.resolverDb.connect()) {
                c.createStatement().execute("UPDATE resolver.relay_delivery SET delivered_through = 0");
            }
            sys.ok("PUT", s + "/items/after-restart", "w", "{\"attributes\":{\"name\":\"after\"}}");
            await().atMost(Duration.ofSeconds(30)).until(() -> appliedPosition(sys) == head + 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> durableProgress(sys) == head + 1);
            assertThat(TwoServices.rows(sys.productDb, """
                    SELECT position, count(*) FROM product.inbox GROUP BY position HAVING count(*) > 1
                    """)).as("no position processed twice").isEmpty();
            assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.inbox"))
                    .isEqualTo(head + 1);
            assertThat(productState(sys)).isEqualTo(resolverState(sys));
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(1);
        }
    }

    private static long appliedPosition(TwoServices sys) throws Exception {
        List<Map<String, Object>> r = TwoServices.rows(sys.productDb, """
                SELECT g.applied_position FROM product.serving_generation s
                  JOIN product.generation g ON g.generation_id = s.generation_id
                 WHERE s.tenant = 'acme' AND s.catalog = 'shoes'
                """);
        return r.isEmpty() ? -1 : ((Number) r.get(0).get("applied_position")).longValue();
    }

    private static long durableProgress(TwoServices sys) throws Exception {
        return TwoServices.scalar(sys.resolverDb, """
                SELECT coalesce(max(durable_position), -1) FROM resolver.retention_consumer
                 WHERE consumer_id = 'product-1'
                """);
    }

    private static List<Map<String, Object>> resolverState(TwoServices sys) throws Exception {
        return TwoServices.rows(sys.resolverDb, """
                SELECT item_id, revision, deleted, attributes::text AS attributes FROM resolver.item
                 WHERE tenant = 'acme' AND catalog = 'shoes' ORDER BY item_id COLLATE "C"
                """);
    }

    private static List<Map<String, Object>> productState(TwoServices sys) throws Exception {
        return TwoServices.rows(sys.productDb, """
                SELECT i.item_id, i.revision, i.deleted, i.attributes::text AS attributes FROM product.item i
                  JOIN product.serving_generation s ON s.generation_id = i.generation_id
                 WHERE s.tenant = 'acme' AND s.catalog = 'shoes' ORDER BY i.item_id COLLATE "C"
                """);
    }
}
