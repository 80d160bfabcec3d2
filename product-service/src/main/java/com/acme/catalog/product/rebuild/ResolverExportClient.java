package com.acme.catalog.product.rebuild;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The resolver calls a rebuild makes, with bearer {@code RESOLVER_TOKEN}: retention status, leases, exports,
 * catch-up pages, consumer registration and progress. A 410 becomes {@link GoneException} (restart from a new
 * export); any other non-2xx answer an {@link IllegalStateException} naming the call and the problem.
 */
@Component
public class ResolverExportClient {

    /** The resolver answered 410: the lease or the cursor is gone, or the epoch changed. */
    public static final class GoneException extends RuntimeException {
        public GoneException(String message) {
            super(message);
        }
    }

    /** The resolver answered 422 {@code POSITION_AHEAD}: the position asked about is beyond its committed head. */
    public static final class AheadOfSourceException extends RuntimeException {
        AheadOfSourceException(String message) {
            super(message);
        }
    }

    /** The stream's current epoch and committed cursor as the resolver's retention status shows them. */
    public record StreamStatus(long epoch, long cursor) {
    }

    private final RestClient rest;
    private final ObjectMapper json;
    private final String consumerId;
    private final String deliveryUrl;

    ResolverExportClient(@Value("${product.resolver-url}") String resolverUrl,
            @Value("${product.resolver-token:}") String token, @Value("${product.consumer-id}") String consumerId,
            @Value("${product.delivery-url}") String deliveryUrl,
            @Value("${product.rebuild.request-timeout-ms:30000}") long timeoutMs, ObjectMapper json) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(timeoutMs)).build();
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(http);
        factory.setReadTimeout(Duration.ofMillis(timeoutMs));
        RestClient.Builder b = RestClient.builder().baseUrl(resolverUrl).requestFactory(factory)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (!token.isBlank()) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        this.rest = b.build();
        this.json = json;
        this.consumerId = consumerId;
        this.deliveryUrl = deliveryUrl;
    }

    long epoch(StreamId s) {
        return status(s).epoch();
    }

    public StreamStatus status(StreamId s) {
        JsonNode n = check("retention status", rest.get().uri("/v1/retention/streams/{t}/{c}", s.tenant(),
                s.catalog()).retrieve().toEntity(String.class));
        return new StreamStatus(n.path("epoch").longValue(), n.path("cursor").longValue());
    }

    /**
     * The stream's current epoch as the resolver's epoch API reads it from the control store
     * ({@code GET /v1/epochs/{t}/{c}}; 1 for a stream nobody wrote).
     */
    public long currentEpoch(StreamId s) {
        JsonNode n = check("current epoch", rest.get().uri("/v1/epochs/{t}/{c}", s.tenant(), s.catalog()).retrieve()
                .toEntity(String.class));
        long epoch = n.path("epoch").longValue();
        if (epoch < 1) {
            throw new IllegalStateException("the epoch API answered no epoch for " + s + ": " + n);
        }
        return epoch;
    }

    public String createLease(StreamId s, long epoch, long ttlSeconds, String owner) {
        Map<String, Object> body = stream(s);
        body.put("epoch", epoch);
        body.put("ttlSeconds", ttlSeconds);
        body.put("owner", owner);
        return text(check("lease", post("/v1/retention/leases", body)), "leaseId");
    }

    public void renewLease(String leaseId, long ttlSeconds) {
        check("lease renewal", post("/v1/retention/leases/" + leaseId + "/renew", Map.of("ttlSeconds", ttlSeconds)));
    }

    public void releaseLease(String leaseId) {
        ResponseEntity<String> r = rest.delete().uri("/v1/retention/leases/{id}", leaseId).retrieve()
                .toEntity(String.class);
        if (r.getStatusCode().isError() && r.getStatusCode().value() != 410 && r.getStatusCode().value() != 404) {
            check("lease release", r);
        }
    }

    String requestExport(StreamId s, String leaseId) {
        Map<String, Object> body = stream(s);
        body.put("leaseId", leaseId);
        return text(check("export", post("/v1/exports", body)), "exportId");
    }

    JsonNode exportStatus(String exportId) {
        return check("export status", rest.get().uri("/v1/exports/{id}", exportId).retrieve().toEntity(String.class));
    }

    public EventPage events(StreamId s, long after, String leaseId, long epoch, int limit) {
        ResponseEntity<String> r = rest.get().uri(u -> u.path("/v1/exports/events").queryParam("tenant", s.tenant())
                .queryParam("catalog", s.catalog()).queryParam("after", after).queryParam("lease_id", leaseId)
                .queryParam("history_epoch", epoch).queryParam("limit", limit).build()).retrieve()
                .toEntity(String.class);
        check("catch-up page after " + after, r);
        return EventPage.parse(r.getBody());
    }

    /**
     * The resolver's chain digest at {@code position} of {@code epoch} (and its head).
     *
     * @throws GoneException on a 410: the digest there is pruned, or the epoch is not the open one
     * @throws AheadOfSourceException when the resolver has not committed {@code position}
     */
    public ChainDigestAt chainDigest(StreamId s, long epoch, long position) {
        ResponseEntity<String> r = rest.get().uri(u -> u.path("/v1/streams/{t}/{c}/chain-digest")
                .queryParam("position", position).queryParam("epoch", epoch).build(s.tenant(), s.catalog()))
                .retrieve().toEntity(String.class);
        if (r.getStatusCode().value() == 422 && r.getBody() != null
                && "POSITION_AHEAD".equals(json.readTree(r.getBody()).path("code").stringValue())) {
            throw new AheadOfSourceException("the resolver has not committed position " + position + " of " + s
                    + " epoch " + epoch + ": " + r.getBody());
        }
        check("chain digest at " + position, r);
        return json.readValue(r.getBody(), ChainDigestAt.class);
    }

    void registerConsumer(StreamId s, long epoch) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("consumerId", consumerId);
        body.putAll(stream(s));
        body.put("epoch", epoch);
        body.put("deliveryUrl", deliveryUrl);
        check("consumer registration", post("/v1/retention/consumers", body));
    }

    void progress(StreamId s, long epoch, long position) {
        Map<String, Object> body = stream(s);
        body.put("epoch", epoch);
        body.put("position", position);
        check("progress", rest.put().uri("/v1/retention/consumers/{id}/progress", consumerId)
                .contentType(MediaType.APPLICATION_JSON).body(body).retrieve().toEntity(String.class));
    }

    /**
     * Reports {@code position} of {@code epoch} as the consumer's progress and tells what the resolver answered: the
     * recovery worker sends it when the product holds a position ahead of the resolver's cursor, the rollback signal
     * the resolver turns into {@code HISTORY_ROLLED_BACK} (docs/epochs.md).
     *
     * @return the problem code of a refusal (e.g. {@code HISTORY_ROLLED_BACK}), empty when it was accepted
     */
    public java.util.Optional<String> reportAhead(StreamId s, long epoch, long position) {
        Map<String, Object> body = stream(s);
        body.put("epoch", epoch);
        body.put("position", position);
        ResponseEntity<String> r = rest.put().uri("/v1/retention/consumers/{id}/progress", consumerId)
                .contentType(MediaType.APPLICATION_JSON).body(body).retrieve().toEntity(String.class);
        if (!r.getStatusCode().isError()) {
            return java.util.Optional.empty();
        }
        String code = r.getBody() == null ? "" : json.readTree(r.getBody()).path("code").asString();
        return java.util.Optional.of(code.isEmpty() ? "HTTP " + r.getStatusCode().value() : code);
    }

    private ResponseEntity<String> post(String path, Object body) {
        return rest.post().uri(path).contentType(MediaType.APPLICATION_JSON).body(body).retrieve()
                .toEntity(String.class);
    }

    private JsonNode check(String call, ResponseEntity<String> r) {
        int status = r.getStatusCode().value();
        if (status == 410) {
            throw new GoneException(call + ": 410 " + r.getBody());
        }
        if (status >= 300) {
            throw new IllegalStateException(call + " answered " + status + ": " + r.getBody());
        }
        return r.getBody() == null ? json.createObjectNode() : json.readTree(r.getBody());
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isString()) {
            throw new IllegalStateException("resolver answer has no " + field + ": " + n);
        }
        return v.stringValue();
    }

    private static Map<String, Object> stream(StreamId s) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenant", s.tenant());
        body.put("catalog", s.catalog());
        return body;
    }
}
