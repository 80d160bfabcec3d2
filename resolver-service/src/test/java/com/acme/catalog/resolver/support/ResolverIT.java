package com.acme.catalog.resolver.support;

import com.acme.catalog.testsupport.FreshDatabase;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Base of resolver integration tests: the whole service on a random port over its own fresh database, with
 * the outbox relay off unless a test enables it, and one token per role ({@code op}, {@code w}, {@code w-acme} limited to tenant acme, {@code r}, {@code c}).
 */
@FreshDatabase(extra = "control.datasource")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "security.tokens=op=operator;w=writer;w-acme=writer@acme;r=relay;c=consumer;c-acme=consumer@acme",
        // the relay would publish events on its own; tests that need it turn it on
        "relay.enabled=false",
        // the delivery URLs tests register (fake consumers listen on 127.0.0.1, any port)
        "relay.allowed-delivery-urls=http://127.0.0.1:,http://localhost:9/,http://product-1:8082/,"
                + "https://product-2/,https://product:8082/"})
public abstract class ResolverIT {

    @LocalServerPort
    protected int port;

    @Autowired
    private ObjectMapper jsonMapper;

    /** A client that never throws on 4xx/5xx, so tests assert statuses themselves. */
    protected RestClient client(String token) {
        RestClient.Builder b = RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (token != null) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    /** Sends a request (body: a JSON string, or any value serialized as JSON) and answers whatever came back. */
    protected Response call(HttpMethod method, String path, String token, Object body) {
        return call(method, path, token, body, java.util.Map.of());
    }

    /** {@link #call(HttpMethod, String, String, Object)} with request headers (an {@code Idempotency-Key}, …). */
    protected Response call(HttpMethod method, String path, String token, Object body,
            java.util.Map<String, String> headers) {
        RestClient.RequestBodySpec spec = client(token).method(method).uri(path);
        headers.forEach(spec::header);
        if (body != null) {
            spec.contentType(MediaType.APPLICATION_JSON).body(body instanceof String text ? text
                    : jsonMapper.writeValueAsString(body));
        }
        var entity = spec.retrieve().toEntity(String.class);
        String text = entity.getBody();
        JsonNode node = text == null || text.isBlank() ? jsonMapper.missingNode() : jsonMapper.readTree(text);
        MediaType type = entity.getHeaders().getContentType();
        return new Response(entity.getStatusCode().value(), node, type == null ? null : type.toString(), text);
    }

    protected Response post(String path, String token, Object body) {
        return call(HttpMethod.POST, path, token, body);
    }

    protected Response put(String path, String token, Object body) {
        return call(HttpMethod.PUT, path, token, body);
    }

    protected Response get(String path, String token) {
        return call(HttpMethod.GET, path, token, null);
    }

    protected Response delete(String path, String token) {
        return call(HttpMethod.DELETE, path, token, null);
    }

    /** An HTTP answer: status, parsed body (missing node when empty), content type and the raw text. */
    protected record Response(int status, JsonNode body, String contentType, String raw) {

        public String code() {
            return body.path("code").isString() ? body.path("code").stringValue() : null;
        }

        public long number(String field) {
            return body.path(field).asLong();
        }

        public String text(String field) {
            JsonNode n = body.path(field);
            return n.isString() ? n.stringValue() : null;
        }
    }
}
