package com.acme.catalog.resolver.review;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Intake → extraction run → review case → decision through the REST API on real PostgreSQL: an ACCEPT applies the
 * case's changes in one logical transaction with its DecisionRecorded event, its revisions cite the decision and the
 * decision cites the artifact; a REJECT changes nothing in accepted state; a conflicting ACCEPT writes nothing.
 */
class DecisionIT extends EvidenceIT {

    private static final StreamId S = new StreamId("acme", "shoes");

    @Test
    void acceptAppliesTheCaseWithItsDecisionEventAndCitesTheArtifact() throws Exception {
        byte[] page = "<html><h1>Trail runner</h1><p>120 EUR</p></html>".getBytes();
        Response first = intake("acme", "w", page, "text/html; charset=utf-8");
        assertThat(first.status()).as(first.raw()).isEqualTo(201);
        UUID artifact = UUID.fromString(first.text("artifactId"));
        assertThat(first.text("sha256")).isEqualTo(HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(page)));
        assertThat(first.number("bytes")).isEqualTo(page.length);
        assertThat(first.text("contentType")).isEqualTo("text/html;charset=utf-8");
        Response again = intake("acme", "w", page, "text/plain");
        assertThat(again.status()).as("the same bytes: the same artifact").isEqualTo(200);
        assertThat(again.text("artifactId")).isEqualTo(artifact.toString());
        assertThat(get("/v1/tenants/acme/evidence/" + artifact, "w").text("status")).isEqualTo("PRESENT");
        var content = HTTP.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base()
                + "/v1/tenants/acme/evidence/" + artifact + "/content")).header("Authorization", "Bearer w").build(),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        assertThat(content.statusCode()).isEqualTo(200);
        assertThat(content.body()).isEqualTo(page);
        assertThat(content.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
        assertThat(content.headers().firstValue("Evidence-Content-Type")).hasValue("text/html;charset=utf-8");

        List<UUID> claims = claims(S, artifact, "sku-1", Map.of("name", "Trail runner", "price", 120));
        UUID caseId = openCase(S, claims, """
                [{"op":"upsertItem","itemId":"sku-1","attributes":{"name":"Trail runner","price":120}},
                 {"op":"putRelease","releaseId":"spring","visibility":"PUBLIC",
                  "items":[{"itemId":"sku-1","revision":1}]}]
                """);
        assertThat(get(stream(S) + "/review-cases?status=OPEN", "op").body().path("cases"))
                .extracting(c -> c.path("caseId").stringValue()).containsExactly(caseId.toString());

        Response accepted = decide(S, caseId, "ACCEPT", List.of());
        assertThat(accepted.status()).as(accepted.raw()).isEqualTo(201);
        UUID decisionId = UUID.fromString(accepted.text("decisionId"));
        assertThat(accepted.number("epoch")).isEqualTo(1);
        assertThat(accepted.number("firstPosition")).isEqualTo(1);
        assertThat(accepted.number("lastPosition")).isEqualTo(3);

        // accepted state
        assertThat(jdbc.sql("SELECT attributes::text FROM item WHERE tenant = 'acme' AND catalog = 'shoes'"
                + " AND item_id = 'sku-1' AND revision = 1").query(String.class).single())
                .isEqualTo("{\"name\": \"Trail runner\", \"price\": 120}");
        assertThat(jdbc.sql("SELECT visibility FROM release WHERE release_id = 'spring'").query(String.class).single())
                .isEqualTo("PUBLIC");

        // one logical transaction: DecisionRecorded first, then the state events, chained like every write
        List<Map<String, Object>> events = jdbc.sql("SELECT position, event_type, transaction_id::text AS tx, wire,"
                + " chain_digest FROM outbox WHERE tenant = 'acme' AND catalog = 'shoes' ORDER BY position")
                .query().listOfRows();
        assertThat(events).extracting(e -> e.get("event_type"))
                .containsExactly("DecisionRecorded", "ItemUpserted", "ReleasePublished");
        assertThat(events).extracting(e -> e.get("tx")).containsOnly(events.get(0).get("tx"));
        String digest = ChainDigest.ZERO;
        for (Map<String, Object> e : events) {
            digest = ChainDigest.next(digest, (String) e.get("wire"));
            assertThat(e.get("chain_digest")).isEqualTo(digest);
        }
        JsonNode decisionEvent = json.readTree((String) events.get(0).get("wire"));
        assertThat(decisionEvent.path("aggregateType").stringValue()).isEqualTo("decision");
        assertThat(decisionEvent.path("aggregateId").stringValue()).isEqualTo(decisionId.toString());
        assertThat(decisionEvent.path("revision").intValue()).isEqualTo(1);
        assertThat(decisionEvent.path("transactionCount").intValue()).isEqualTo(3);
        assertThat(decisionEvent.path("payload").path("caseId").stringValue()).isEqualTo(caseId.toString());
        assertThat(decisionEvent.path("payload").path("artifactIds").get(0).stringValue())
                .isEqualTo(artifact.toString());

        // the revisions cite the decision, the decision cites the artifact
        assertThat(jdbc.sql("SELECT aggregate_type || ':' || aggregate_id || ':' || revision FROM decision_revision"
                + " WHERE decision_id = ? ORDER BY 1").params(decisionId).query(String.class).list())
                .containsExactly("item:sku-1:1", "release:spring:1");
        assertThat(jdbc.sql("SELECT artifact_id FROM decision_citation WHERE decision_id = ?").params(decisionId)
                .query(UUID.class).list()).containsExactly(artifact);
        JsonNode decided = get(stream(S) + "/review-cases/" + caseId, "w").body();
        assertThat(decided.path("status").stringValue()).isEqualTo("DECIDED");
        assertThat(decided.path("decision").path("decision").stringValue()).isEqualTo("ACCEPT");
        assertThat(decided.path("decision").path("artifactIds").get(0).stringValue()).isEqualTo(artifact.toString());
        assertThat(decided.path("decision").path("transactionId").stringValue()).isEqualTo(events.get(0).get("tx"));
        assertThat(get(stream(S) + "/review-cases?status=OPEN", "op").body().path("cases")).isEmpty();
        assertThat(get(stream(S) + "/review-cases?status=DECIDED", "op").body().path("cases")).hasSize(1);
    }

    @Test
    void listsCasesInPages() throws Exception {
        StreamId s = new StreamId("acme", "pages");
        UUID artifact = artifact("acme", "<p>pages</p>");
        List<UUID> claims = claims(s, artifact, "sku-1", Map.of("name", "p"));
        List<UUID> opened = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            opened.add(openCase(s, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-" + i
                    + "\",\"attributes\":{}}]"));
        }
        assertThat(decide(s, opened.get(1), "REJECT", List.of()).status()).isEqualTo(201);
        List<String> seen = new java.util.ArrayList<>();
        String after = null;
        do {
            JsonNode page = get(stream(s) + "/review-cases?status=OPEN&limit=2" + (after == null ? "" : "&after="
                    + after), "w").body();
            assertThat(page.path("cases").size()).isLessThanOrEqualTo(2);
            page.path("cases").forEach(c -> seen.add(c.path("caseId").stringValue()));
            after = page.path("next").isString() ? page.path("next").stringValue() : null;
        } while (after != null);
        assertThat(seen).containsExactly(opened.get(0).toString(), opened.get(2).toString(),
                opened.get(3).toString(), opened.get(4).toString());
        assertThat(get(stream(s) + "/review-cases", "op").body().path("cases")).hasSize(5);
    }

    @Test
    void rejectChangesNothingInAcceptedState() throws Exception {
        StreamId s = new StreamId("acme", "reject");
        put(stream(s) + "/items/sku-9", "w", Map.of("attributes", Map.of("name", "before")));
        UUID artifact = artifact("acme", "<p>reject me</p>");
        UUID caseId = openCase(s, claims(s, artifact, "sku-9", Map.of("name", "after")),
                "[{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{\"name\":\"after\"}}]");
        Map<String, Long> before = fingerprint();
        Response rejected = decide(s, caseId, "REJECT", List.of());
        assertThat(rejected.status()).as(rejected.raw()).isEqualTo(201);
        assertThat(rejected.body().has("epoch")).isFalse();
        assertThat(rejected.body().has("firstPosition")).isFalse();
        Map<String, Long> after = fingerprint();
        assertThat(after.get("review_decision")).isEqualTo(before.get("review_decision") + 1);
        assertThat(after.get("decision_citation")).isEqualTo(before.get("decision_citation") + 1);
        for (String unchanged : List.of("outbox", "accepted_revision", "item", "release", "position",
                "decision_revision")) {
            assertThat(after.get(unchanged)).as(unchanged).isEqualTo(before.get(unchanged));
        }
        assertThat(jdbc.sql("SELECT attributes ->> 'name' FROM item WHERE catalog = 'reject' AND item_id = 'sku-9'")
                .query(String.class).single()).isEqualTo("before");
        JsonNode decided = get(stream(s) + "/review-cases/" + caseId, "w").body();
        assertThat(decided.path("status").stringValue()).isEqualTo("DECIDED");
        assertThat(decided.path("decision").path("decision").stringValue()).isEqualTo("REJECT");
        assertThat(decide(s, caseId, "ACCEPT", List.of()).code()).isEqualTo("CASE_DECIDED");
    }

    @Test
    void anAcceptWhoseChangesConflictWritesNothingAndLeavesTheCaseOpen() throws Exception {
        StreamId s = new StreamId("acme", "conflict");
        put(stream(s) + "/items/sku-3", "w", Map.of("attributes", Map.of("name", "v1")));
        UUID artifact = artifact("acme", "<p>conflict</p>");
        UUID caseId = openCase(s, claims(s, artifact, "sku-3", Map.of("name", "v2")),
                "[{\"op\":\"upsertItem\",\"itemId\":\"sku-3\",\"attributes\":{\"name\":\"v2\"},"
                        + "\"expectedRevision\":1}]");
        put(stream(s) + "/items/sku-3", "w", Map.of("attributes", Map.of("name", "v1 again"))); // now at revision 2
        Map<String, Long> before = fingerprint();
        Response r = decide(s, caseId, "ACCEPT", List.of());
        assertThat(r.status()).as(r.raw()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("REVISION_CONFLICT");
        assertThat(fingerprint()).isEqualTo(before);
        assertThat(get(stream(s) + "/review-cases/" + caseId, "w").text("status")).isEqualTo("OPEN");
        assertThat(decide(s, caseId, "REJECT", List.of()).status()).isEqualTo(201);
    }
}
