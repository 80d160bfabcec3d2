package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Both services from their jars: crawled evidence goes in, an extraction run makes claims, a review case proposes an
 * item and a PUBLIC release naming it, and its ACCEPT makes the item appear in the product's public API, with the
 * decision citing the artifact; a REJECTed case changes nothing the product serves. The product's inbox records the
 * decision's event as IGNORED and its contiguous position passes it.
 */
class EvidenceReviewSystemIT {

    @Test
    void anAcceptedCaseReachesThePublicApiAndARejectedOneDoesNot() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve("acme", "shoes");
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/acme/shoes";
            sys.ok("PUT", s + "/items/seed", "w", "{\"attributes\":{\"name\":\"seed\"}}");
            sys.startProduct(sys.resolverUrl());
            sys.registerProduct("acme", "shoes");

            JsonNode artifact = sys.ok("POST", sys.resolverUrl() + "/v1/tenants/acme/evidence", "w",
                    "{\"crawled\":\"https://shop.example/hero\",\"title\":\"Hero boot\",\"price\":149}");
            String artifactId = artifact.path("artifactId").stringValue();
            JsonNode run = sys.ok("POST", s + "/extraction-runs", "w", "{\"artifactId\":\"" + artifactId
                    + "\",\"extractor\":\"json-v1\",\"claims\":["
                    + "{\"aggregateType\":\"item\",\"aggregateId\":\"hero\",\"field\":\"name\","
                    + "\"value\":\"Hero boot\"},"
                    + "{\"aggregateType\":\"item\",\"aggregateId\":\"hero\",\"field\":\"price\",\"value\":149}],"
                    + "\"unmappedFields\":[\"crawled\"]}");
            String claims = run.path("claimIds").toString();
            String accepted = sys.ok("POST", s + "/review-cases", "w", "{\"claimIds\":" + claims + ",\"changes\":["
                    + "{\"op\":\"upsertItem\",\"itemId\":\"hero\","
                    + "\"attributes\":{\"name\":\"Hero boot\",\"price\":149}},"
                    + "{\"op\":\"putRelease\",\"releaseId\":\"launch\",\"visibility\":\"PUBLIC\","
                    + "\"items\":[{\"itemId\":\"hero\",\"revision\":1}]}]}").path("caseId").stringValue();
            String rejected = sys.ok("POST", s + "/review-cases", "w", "{\"claimIds\":" + claims + ",\"changes\":["
                    + "{\"op\":\"upsertItem\",\"itemId\":\"villain\",\"attributes\":{\"name\":\"Villain boot\"}},"
                    + "{\"op\":\"putRelease\",\"releaseId\":\"dark\",\"visibility\":\"PUBLIC\","
                    + "\"items\":[{\"itemId\":\"villain\",\"revision\":1}]}]}").path("caseId").stringValue();

            JsonNode reject = sys.ok("POST", s + "/review-cases/" + rejected + "/decisions", "op",
                    "{\"decision\":\"REJECT\",\"reviewer\":\"ana\",\"reason\":\"not our product\"}");
            assertThat(reject.has("firstPosition")).isFalse();
            JsonNode accept = sys.ok("POST", s + "/review-cases/" + accepted + "/decisions", "op",
                    "{\"decision\":\"ACCEPT\",\"reviewer\":\"ana\",\"reason\":\"matches the shop\"}");
            long last = accept.path("lastPosition").longValue();
            assertThat(accept.path("firstPosition").longValue()).isEqualTo(2);
            assertThat(last).isEqualTo(4);

            String catalog = sys.productUrl() + "/v1/catalog/acme/shoes";
            await().atMost(Duration.ofSeconds(60)).until(() -> sys.call("GET", catalog + "/items/hero", null, null)
                    .status() == 200);
            JsonNode hero = sys.ok("GET", catalog + "/items/hero", null, null);
            assertThat(hero.toString()).contains("Hero boot").contains("149");
            assertThat(sys.call("GET", catalog + "/items/villain", null, null).status()).isEqualTo(404);

            JsonNode decided = sys.ok("GET", s + "/review-cases/" + accepted, "op", null);
            assertThat(decided.path("status").stringValue()).isEqualTo("DECIDED");
            assertThat(decided.path("decision").path("artifactIds").get(0).stringValue()).isEqualTo(artifactId);
            assertThat(TwoServices.scalar(sys.resolverDb, "SELECT count(*) FROM resolver.decision_revision"))
                    .isEqualTo(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> TwoServices.scalar(sys.productDb, """
                    SELECT g.applied_position FROM product.serving_generation s
                      JOIN product.generation g ON g.generation_id = s.generation_id
                     WHERE s.tenant = 'acme' AND s.catalog = 'shoes'
                    """) == last);
            // the serving generation's inbox: a rebuild (the recovery worker's, at start) has an inbox of its own
            assertThat(TwoServices.rows(sys.productDb, "SELECT i.position, i.outcome FROM product.inbox i"
                    + " JOIN product.serving_generation s ON s.generation_id = i.generation_id"
                    + " WHERE s.tenant = 'acme' AND s.catalog = 'shoes' AND i.event_type = 'DecisionRecorded'"))
                    .singleElement()
                    .satisfies(row -> assertThat(row.get("outcome")).isEqualTo("IGNORED"));
        }
    }
}
