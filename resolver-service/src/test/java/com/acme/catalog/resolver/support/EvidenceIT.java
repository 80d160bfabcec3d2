package com.acme.catalog.resolver.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.objectstore.ObjectStore;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Base of evidence and review ITs: objects in a directory of this context's own (a class may override the store),
 * the scheduled evidence retention off (tests run it through the API), and helpers for the intake → run → case →
 * decision flow.
 */
@TestPropertySource(properties = {"evidence.retention.enabled=false", "retention.prune.enabled=false",
        "retention.status.enabled=false",
        "object.store.uri=file:${java.io.tmpdir}/resolver-evidence-it/${random.uuid}"})
public abstract class EvidenceIT extends ResolverIT {

    protected static final HttpClient HTTP = HttpClient.newHttpClient();

    @Autowired
    protected JdbcClient jdbc;
    @Autowired
    protected ObjectMapper json;
    @Autowired
    protected ObjectStore store;

    /** Sends raw bytes to the tenant's evidence intake. */
    protected Response intake(String tenant, String token, byte[] body, String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + "/v1/tenants/" + tenant + "/evidence"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        HttpResponse<String> res = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        String text = res.body();
        JsonNode node = text == null || text.isBlank() ? json.missingNode() : json.readTree(text);
        return new Response(res.statusCode(), node, res.headers().firstValue("Content-Type").orElse(null), text);
    }

    /** A new artifact of {@code tenant} holding {@code body} (201 expected). */
    protected UUID artifact(String tenant, String body) throws Exception {
        Response r = intake(tenant, "w", body.getBytes(), "text/html; charset=utf-8");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return UUID.fromString(r.text("artifactId"));
    }

    /** An extraction run over the artifact with one claim per field of {@code fields} about item {@code itemId}. */
    protected List<UUID> claims(StreamId s, UUID artifact, String itemId, Map<String, Object> fields) {
        List<Map<String, Object>> claims = new ArrayList<>();
        fields.forEach((field, value) -> claims.add(Map.of("aggregateType", "item", "aggregateId", itemId,
                "field", field, "value", value)));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("artifactId", artifact.toString());
        body.put("extractor", "html-v1");
        body.put("claims", claims);
        body.put("unmappedFields", List.of("footer", Map.of("field", "badge", "value", "new!")));
        Response r = post(stream(s) + "/extraction-runs", "w", body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        List<UUID> ids = new ArrayList<>();
        r.body().path("claimIds").forEach(id -> ids.add(UUID.fromString(id.stringValue())));
        return ids;
    }

    /** Opens a case over the claims proposing {@code changesJson} (a JSON array of transaction changes). */
    protected UUID openCase(StreamId s, List<UUID> claimIds, String changesJson) {
        Response r = post(stream(s) + "/review-cases", "w", "{\"claimIds\":" + json.writeValueAsString(
                claimIds.stream().map(UUID::toString).toList()) + ",\"changes\":" + changesJson + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        assertThat(r.text("status")).isEqualTo("OPEN");
        return UUID.fromString(r.text("caseId"));
    }

    protected Response decide(StreamId s, UUID caseId, String verdict, List<UUID> evidence) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("decision", verdict);
        body.put("reviewer", "ana");
        body.put("reason", "matches the product page");
        body.put("evidence", evidence.stream().map(UUID::toString).toList());
        return post(stream(s) + "/review-cases/" + caseId + "/decisions", "w", body);
    }

    /** Moves the artifact's last activity back by {@code ago} (database time), as if it had been idle that long. */
    protected void idle(UUID artifact, Duration ago) {
        jdbc.sql("UPDATE evidence_artifact SET last_activity_at = now() - make_interval(secs => ?)"
                + " WHERE artifact_id = ?").params(ago.toSeconds(), artifact).update();
    }

    /** Row counts of every evidence, review and accepted-state table, the cursor sum and the stored objects. */
    protected Map<String, Long> fingerprint() throws IOException {
        Map<String, Long> m = new java.util.TreeMap<>();
        for (String table : List.of("evidence_artifact", "extraction_run", "claim", "review_case",
                "review_case_claim", "review_decision", "decision_citation", "decision_revision", "outbox",
                "accepted_revision", "item", "release", "stream_cursor", "evidence_retention_run")) {
            m.put(table, jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single());
        }
        m.put("position", jdbc.sql("SELECT coalesce(sum(position), 0) FROM stream_cursor").query(Long.class).single());
        m.put("activity", jdbc.sql("SELECT coalesce(sum(extract(epoch FROM last_activity_at))::bigint, 0)"
                + " FROM evidence_artifact").query(Long.class).single());
        m.put("fixtures", jdbc.sql("SELECT count(*) FROM evidence_artifact WHERE fixture").query(Long.class).single());
        m.put("objects", (long) store.list("evidence/").size());
        return m;
    }

    /** The Prometheus scrape, as text. */
    protected String metrics() throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    protected static String stream(StreamId s) {
        return "/v1/streams/" + s.tenant() + "/" + s.catalog();
    }

    protected String base() {
        return "http://localhost:" + port;
    }
}
