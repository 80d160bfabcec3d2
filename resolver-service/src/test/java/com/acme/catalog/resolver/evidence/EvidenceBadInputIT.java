package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Every refused evidence, run, case, decision and retention request answers problem+json with its contract code
 * and leaves every table and the object store exactly as they were. {@code {A}} in a path or body is the tenant's
 * artifact, {@code {OTHER}} another tenant's, {@code {CLAIM}} a claim of acme/shoes, {@code {BOOTS}} a claim of
 * acme/boots, {@code {OPEN}} an open case, {@code {DECIDED}} a decided one, {@code {CONFLICT}} one whose ACCEPT
 * conflicts.
 */
@TestPropertySource(properties = "evidence.max-bytes=64KB")
class EvidenceBadInputIT extends EvidenceIT {

    private static final String E = "/v1/tenants/acme/evidence";
    private static final String S = "/v1/streams/acme/shoes";
    private static final String OVER = "x".repeat(64 * 1024 + 1);
    private static final String DECISION = "{\"decision\":\"ACCEPT\",\"reviewer\":\"ana\",\"reason\":\"ok\"}";
    private static final Map<String, String> IDS = new HashMap<>();

    @BeforeEach
    void seedOnce() throws Exception {
        if (!IDS.isEmpty()) {
            return;
        }
        StreamId shoes = new StreamId("acme", "shoes");
        UUID a = artifact("acme", "<p>bad input</p>");
        IDS.put("{A}", a.toString());
        IDS.put("{OTHER}", artifact("other", "<p>other tenant</p>").toString());
        List<UUID> claims = claims(shoes, a, "sku-1", Map.of("name", "x"));
        IDS.put("{CLAIM}", claims.get(0).toString());
        IDS.put("{BOOTS}", claims(new StreamId("acme", "boots"), a, "sku-1", Map.of("name", "y")).get(0).toString());
        IDS.put("{OPEN}", openCase(shoes, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{}}]")
                .toString());
        UUID decided = openCase(shoes, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{}}]");
        assertThat(decide(shoes, decided, "REJECT", List.of()).status()).isEqualTo(201);
        IDS.put("{DECIDED}", decided.toString());
        put(S + "/items/sku-x", "w", Map.of("attributes", Map.of("name", "exists")));
        IDS.put("{CONFLICT}", openCase(shoes, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-x\","
                + "\"attributes\":{},\"expectedRevision\":0}]").toString());
    }

    static Stream<Arguments> cases() {
        String run = "{\"artifactId\":\"{A}\",\"extractor\":\"x\",\"claims\":[%s]}";
        String claim = "{\"aggregateType\":\"item\",\"aggregateId\":\"sku-1\",\"field\":\"name\",\"value\":\"v\"}";
        String kase = "{\"claimIds\":[\"{CLAIM}\"],\"changes\":[%s]}";
        String change = "{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{}}";
        return Stream.of(
                c("intake without a token", "POST", E, null, "<p>", "text/html", 401, "UNAUTHENTICATED"),
                c("intake by a consumer", "POST", E, "c", "<p>", "text/html", 403, "FORBIDDEN"),
                c("intake by an operator", "POST", E, "op", "<p>", "text/html", 403, "FORBIDDEN"),
                c("intake by a writer of another tenant", "POST", "/v1/tenants/other/evidence", "w-acme", "<p>",
                        "text/html", 403, "FORBIDDEN"),
                c("intake to a malformed tenant", "POST", "/v1/tenants/ACME/evidence", "w", "<p>", "text/html", 400,
                        "INVALID_ID"),
                c("intake of an empty body", "POST", E, "w", "", "text/html", 400, "INVALID_BODY"),
                c("intake with a malformed content type", "POST", E, "w", "<p>", "nonsense", 400, "INVALID_BODY"),
                c("intake over the cap", "POST", E, "w", OVER, "text/plain", 413, "PAYLOAD_TOO_LARGE"),
                c("streamed intake over the cap", "POST-CHUNKED", E, "w", OVER, "text/plain", 413,
                        "PAYLOAD_TOO_LARGE"),
                c("metadata of an unknown artifact", "GET", E + "/" + UUID.randomUUID(), "w", null, null, 404,
                        "NOT_FOUND"),
                c("metadata of a malformed artifact id", "GET", E + "/not-a-uuid", "w", null, null, 400,
                        "INVALID_ID"),
                c("metadata of another tenant's artifact", "GET", E + "/{OTHER}", "w", null, null, 404,
                        "NOT_FOUND"),
                c("metadata read by a consumer", "GET", E + "/{A}", "c", null, null, 403, "FORBIDDEN"),
                c("content of an unknown artifact", "GET", E + "/" + UUID.randomUUID() + "/content", "w", null, null,
                        404, "NOT_FOUND"),
                c("fixture mark of an unknown artifact", "PUT", E + "/" + UUID.randomUUID() + "/fixture", "op",
                        "{\"fixture\":true}", "application/json", 404, "NOT_FOUND"),
                c("fixture mark without a value", "PUT", E + "/{A}/fixture", "op", "{}", "application/json", 400,
                        "INVALID_BODY"),
                c("run over an unknown artifact", "POST", S + "/extraction-runs", "w",
                        run.replace("{A}", UUID.randomUUID().toString()).formatted(claim), "application/json", 404,
                        "NOT_FOUND"),
                c("run over another tenant's artifact", "POST", S + "/extraction-runs", "w",
                        run.replace("{A}", "{OTHER}").formatted(claim), "application/json", 404, "NOT_FOUND"),
                c("run with malformed JSON", "POST", S + "/extraction-runs", "w", "{\"artifactId\":",
                        "application/json", 400, "INVALID_BODY"),
                c("run whose claims are not an array", "POST", S + "/extraction-runs", "w",
                        "{\"artifactId\":\"{A}\",\"extractor\":\"x\",\"claims\":{}}", "application/json", 400,
                        "INVALID_BODY"),
                c("run without claims", "POST", S + "/extraction-runs", "w",
                        "{\"artifactId\":\"{A}\",\"extractor\":\"x\"}", "application/json", 400, "INVALID_BODY"),
                c("claim about an unknown aggregate type", "POST", S + "/extraction-runs", "w",
                        run.formatted(claim.replace("\"item\"", "\"table\"")), "application/json", 400,
                        "INVALID_BODY"),
                c("claim with a malformed aggregate id", "POST", S + "/extraction-runs", "w",
                        run.formatted(claim.replace("sku-1", "sku 1")), "application/json", 400, "INVALID_ID"),
                c("claim without a field", "POST", S + "/extraction-runs", "w",
                        run.formatted(claim.replace("\"field\":\"name\",", "")), "application/json", 400,
                        "INVALID_BODY"),
                c("claim without a value", "POST", S + "/extraction-runs", "w",
                        run.formatted(claim.replace(",\"value\":\"v\"", "")), "application/json", 400, "INVALID_BODY"),
                c("claim that is not an object", "POST", S + "/extraction-runs", "w", run.formatted("\"name\""),
                        "application/json", 400, "INVALID_BODY"),
                c("run without an extractor", "POST", S + "/extraction-runs", "w",
                        "{\"artifactId\":\"{A}\",\"claims\":[]}", "application/json", 400, "INVALID_BODY"),
                c("run with a malformed artifact id", "POST", S + "/extraction-runs", "w",
                        run.replace("{A}", "nope").formatted(claim), "application/json", 400, "INVALID_BODY"),
                c("run by a writer of another tenant", "POST", "/v1/streams/other/shoes/extraction-runs", "w-acme",
                        run.formatted(claim), "application/json", 403, "FORBIDDEN"),
                c("case over an unknown claim", "POST", S + "/review-cases", "w",
                        kase.replace("{CLAIM}", UUID.randomUUID().toString()).formatted(change), "application/json",
                        404, "NOT_FOUND"),
                c("case over another stream's claim", "POST", S + "/review-cases", "w",
                        kase.replace("{CLAIM}", "{BOOTS}").formatted(change), "application/json", 404, "NOT_FOUND"),
                c("case without claims", "POST", S + "/review-cases", "w",
                        "{\"claimIds\":[],\"changes\":[" + change + "]}", "application/json", 400, "INVALID_BODY"),
                c("case naming a claim twice", "POST", S + "/review-cases", "w",
                        "{\"claimIds\":[\"{CLAIM}\",\"{CLAIM}\"],\"changes\":[" + change + "]}", "application/json",
                        400, "INVALID_BODY"),
                c("case without changes", "POST", S + "/review-cases", "w", kase.formatted(""), "application/json",
                        400, "INVALID_BODY"),
                c("case with an unknown op", "POST", S + "/review-cases", "w",
                        kase.formatted("{\"op\":\"dropTable\"}"), "application/json", 400, "INVALID_BODY"),
                c("case with a change missing its attributes", "POST", S + "/review-cases", "w",
                        kase.formatted("{\"op\":\"upsertItem\",\"itemId\":\"sku-9\"}"), "application/json", 400,
                        "INVALID_BODY"),
                c("case with a malformed item id", "POST", S + "/review-cases", "w",
                        kase.formatted(change.replace("sku-9", "sku/9")), "application/json", 400, "INVALID_ID"),
                c("case opened by an operator", "POST", S + "/review-cases", "op", kase.formatted(change),
                        "application/json", 403, "FORBIDDEN"),
                c("read of an unknown case", "GET", S + "/review-cases/" + UUID.randomUUID(), "w", null, null, 404,
                        "NOT_FOUND"),
                c("list with an unknown status", "GET", S + "/review-cases?status=CLOSED", "w", null, null, 400,
                        "INVALID_BODY"),
                c("list with limit 0", "GET", S + "/review-cases?limit=0", "w", null, null, 400, "INVALID_BODY"),
                c("decision on an unknown case", "POST", S + "/review-cases/" + UUID.randomUUID() + "/decisions", "w",
                        DECISION, "application/json", 404, "NOT_FOUND"),
                c("decision on a malformed case id", "POST", S + "/review-cases/42/decisions", "w", DECISION,
                        "application/json", 400, "INVALID_ID"),
                c("decision on the case through another catalog", "POST", "/v1/streams/acme/boots/review-cases/{OPEN}"
                        + "/decisions", "w", DECISION, "application/json", 404, "NOT_FOUND"),
                c("decision neither ACCEPT nor REJECT", "POST", S + "/review-cases/{OPEN}/decisions", "w",
                        DECISION.replace("ACCEPT", "MAYBE"), "application/json", 400, "INVALID_BODY"),
                c("decision without a reviewer", "POST", S + "/review-cases/{OPEN}/decisions", "w",
                        "{\"decision\":\"ACCEPT\",\"reason\":\"ok\"}", "application/json", 400, "INVALID_BODY"),
                c("decision with a reason over 4096 characters", "POST", S + "/review-cases/{OPEN}/decisions", "w",
                        DECISION.replace("\"ok\"", "\"" + "r".repeat(4097) + "\""), "application/json", 400,
                        "INVALID_BODY"),
                c("deciding a decided case", "POST", S + "/review-cases/{DECIDED}/decisions", "w", DECISION,
                        "application/json", 409, "CASE_DECIDED"),
                c("accepting a case whose changes conflict", "POST", S + "/review-cases/{CONFLICT}/decisions", "w",
                        DECISION, "application/json", 409, "REVISION_CONFLICT"),
                c("decision citing an unknown artifact", "POST", S + "/review-cases/{OPEN}/decisions", "w",
                        DECISION.replace("}", ",\"evidence\":[\"" + UUID.randomUUID() + "\"]}"), "application/json",
                        404, "NOT_FOUND"),
                c("decision citing another tenant's artifact", "POST", S + "/review-cases/{OPEN}/decisions", "w",
                        DECISION.replace("}", ",\"evidence\":[\"{OTHER}\"]}"), "application/json", 404, "NOT_FOUND"),
                c("decision by a consumer", "POST", S + "/review-cases/{OPEN}/decisions", "c", DECISION,
                        "application/json", 403, "FORBIDDEN"),
                c("retention run by a writer", "POST", "/v1/evidence-retention/run", "w", null, null, 403,
                        "FORBIDDEN"),
                c("retention run for a malformed tenant", "POST", "/v1/evidence-retention/run?tenant=A_B", "op", null,
                        null, 400, "INVALID_ID"),
                c("retention status of another tenant", "GET", "/v1/tenants/other/evidence-retention", "w-acme", null,
                        null, 403, "FORBIDDEN"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void refusedWithProblemAndNothingWritten(String name, String method, String path, String token, String body,
            String contentType, int status, String code) throws Exception {
        Map<String, Long> before = fingerprint();
        HttpResponse<String> res = send(method, fill(path), token, body == null ? null : fill(body), contentType);
        assertThat(res.statusCode()).as(name + ": " + res.body()).isEqualTo(status);
        assertThat(res.headers().firstValue("Content-Type")).as(name).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(res.body());
        assertThat(problem.path("code").stringValue()).as(name).isEqualTo(code);
        assertThat(problem.path("detail").stringValue()).as(name).isNotBlank();
        assertThat(fingerprint()).as(name + ": nothing written").isEqualTo(before);
    }

    private HttpResponse<String> send(String method, String path, String token, String body, String contentType)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : method.equals("POST-CHUNKED")
                        ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body.getBytes()))
                        : HttpRequest.BodyPublishers.ofString(body);
        b.method(method.equals("POST-CHUNKED") ? "POST" : method, publisher);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String fill(String text) {
        String out = text;
        for (Map.Entry<String, String> e : IDS.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }

    private static Arguments c(String name, String method, String path, String token, String body, String type,
            int status, String code) {
        return Arguments.of(name, method, path, token, body, type, status, code);
    }
}
