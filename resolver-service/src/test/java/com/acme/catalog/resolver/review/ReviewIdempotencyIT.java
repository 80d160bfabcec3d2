package com.acme.catalog.resolver.review;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;

/**
 * Review writes with an {@code Idempotency-Key}: opening a case and deciding it, retried with the key, answer the
 * original (the same case, the same receipt) and write nothing; the key with another body is 422; concurrent
 * decisions with one key record one decision and all answer it.
 */
class ReviewIdempotencyIT extends EvidenceIT {

    private static final StreamId S = new StreamId("acme", "keyed-review");

    @Test
    void aRetriedCaseOpeningOpensOneCase() throws Exception {
        String body = caseBody();
        long before = cases();
        Answer opened = send(stream(S) + "/review-cases", "open-1", body);
        assertThat(opened.status()).as(opened.raw()).isEqualTo(201);
        Answer again = send(stream(S) + "/review-cases", "open-1", body);
        assertThat(again.status()).as(again.raw()).isEqualTo(201);
        assertThat(again.raw()).isEqualTo(opened.raw());
        assertThat(again.location()).isEqualTo(opened.location());
        Answer reused = send(stream(S) + "/review-cases", "open-1", body.replace("\"v\":1", "\"v\":2"));
        assertThat(reused.status()).as(reused.raw()).isEqualTo(422);
        assertThat(reused.raw()).contains("IDEMPOTENCY_KEY_REUSED");
        assertThat(cases() - before).isEqualTo(1);
    }

    @Test
    void aRetriedDecisionAnswersTheOriginalReceiptAndDecidesNothing() throws Exception {
        String opened = send(stream(S) + "/review-cases", null, caseBody()).raw();
        UUID caseId = UUID.fromString(json.readTree(opened).path("caseId").stringValue());
        String path = stream(S) + "/review-cases/" + caseId + "/decisions";
        String accept = "{\"decision\":\"ACCEPT\",\"reviewer\":\"ana\",\"reason\":\"ok\"}";
        Answer decided = send(path, "d-1", accept);
        assertThat(decided.status()).as(decided.raw()).isEqualTo(201);
        long events = events();
        Answer again = send(path, "d-1", accept);
        assertThat(again.status()).as("a replay, not 409 CASE_DECIDED: %s", again.raw()).isEqualTo(201);
        assertThat(again.raw()).isEqualTo(decided.raw());
        Answer reused = send(path, "d-1", accept.replace("ACCEPT", "REJECT"));
        assertThat(reused.status()).as(reused.raw()).isEqualTo(422);
        assertThat(events()).as("nothing written").isEqualTo(events);
        assertThat(jdbc.sql("SELECT count(*) FROM review_decision WHERE case_id = ?").param(caseId)
                .query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void concurrentDecisionsWithOneKeyRecordOneDecision() throws Exception {
        String opened = send(stream(S) + "/review-cases", null, caseBody()).raw();
        UUID caseId = UUID.fromString(json.readTree(opened).path("caseId").stringValue());
        String path = stream(S) + "/review-cases/" + caseId + "/decisions";
        String accept = "{\"decision\":\"ACCEPT\",\"reviewer\":\"ana\",\"reason\":\"ok\"}";
        long events = events();
        List<CompletableFuture<HttpResponse<String>>> racers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            racers.add(HTTP.sendAsync(request(path, "race", accept), HttpResponse.BodyHandlers.ofString()));
        }
        List<String> answers = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : racers) {
            HttpResponse<String> res = f.get(30, TimeUnit.SECONDS);
            assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
            answers.add(res.body());
        }
        assertThat(answers).containsOnly(answers.get(0));
        assertThat(events() - events).as("one DecisionRecorded and one upsert").isEqualTo(2);
    }

    private String caseBody() throws Exception {
        UUID artifact = artifact("acme", "<p>keyed " + UUID.randomUUID() + "</p>");
        List<UUID> claims = claims(S, artifact, "sku-1", Map.of("name", "Keyed"));
        return "{\"claimIds\":" + json.writeValueAsString(claims.stream().map(UUID::toString).toList())
                + ",\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{\"v\":1}}]}";
    }

    private long cases() {
        return jdbc.sql("SELECT count(*) FROM review_case WHERE tenant = ? AND catalog = ?")
                .params(S.tenant(), S.catalog()).query(Long.class).single();
    }

    private long events() {
        return jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = ? AND catalog = ?")
                .params(S.tenant(), S.catalog()).query(Long.class).single();
    }

    private HttpRequest request(String path, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer w").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return b.build();
    }

    private Answer send(String path, String key, String body) throws Exception {
        HttpResponse<String> res = HTTP.send(request(path, key, body), HttpResponse.BodyHandlers.ofString());
        return new Answer(res.statusCode(), res.body(), res.headers().firstValue("Location").orElse(null));
    }

    private record Answer(int status, String raw, String location) {
    }
}
