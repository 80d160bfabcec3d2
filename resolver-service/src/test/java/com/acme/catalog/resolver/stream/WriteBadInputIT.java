package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Every refused write answers problem+json with the contract code and leaves the database exactly as it was. */
class WriteBadInputIT extends ResolverIT {

    private static final String S = "/v1/streams/acme/shoes";
    private static final String ITEM = "{\"attributes\":{\"name\":\"x\"}}";

    @Autowired
    JdbcClient jdbc;
    @Autowired
    ObjectMapper json;

    @BeforeEach
    void seedOnce() {
        if (fingerprint().get("outbox") == 0L) {
            client("w").put().uri(S + "/items/sku-1").header("Content-Type", "application/json").body(ITEM)
                    .retrieve().toBodilessEntity();
        }
    }

    static Stream<Arguments> cases() {
        String big = "{\"attributes\":{\"blob\":\"" + "x".repeat(1_100_000) + "\"}}";
        return Stream.of(
                c("no token", "PUT", S + "/items/sku-2", null, ITEM, 401, "UNAUTHENTICATED"),
                c("unknown token", "PUT", S + "/items/sku-2", "nope", ITEM, 401, "UNAUTHENTICATED"),
                c("relay role writes", "PUT", S + "/items/sku-2", "r", ITEM, 403, "FORBIDDEN"),
                c("consumer role writes", "PUT", S + "/items/sku-2", "c", ITEM, 403, "FORBIDDEN"),
                c("operator role writes", "PUT", S + "/items/sku-2", "op", ITEM, 403, "FORBIDDEN"),
                c("writer of another tenant", "PUT", "/v1/streams/other/shoes/items/sku-2", "w-acme", ITEM, 403,
                        "FORBIDDEN"),
                c("tenant upper case", "PUT", "/v1/streams/ACME/shoes/items/sku-2", "w", ITEM, 400, "INVALID_ID"),
                c("catalog underscore", "PUT", "/v1/streams/acme/sh_oes/items/sku-2", "w", ITEM, 400, "INVALID_ID"),
                c("tenant leading dash", "PUT", "/v1/streams/-acme/shoes/items/sku-2", "w", ITEM, 400, "INVALID_ID"),
                c("tenant 64 chars", "PUT", "/v1/streams/" + "a".repeat(64) + "/shoes/items/sku-2", "w", ITEM, 400,
                        "INVALID_ID"),
                c("item id with space", "PUT", S + "/items/sku%202", "w", ITEM, 400, "INVALID_ID"),
                c("item id with an encoded percent", "PUT", S + "/items/sku%25x", "w", ITEM, 400, "INVALID_ID"),
                c("item id with an encoded slash", "PUT", S + "/items/sku%2Fx", "w", ITEM, 400, "INVALID_ID"),
                c("path with a double slash", "PUT", S + "//items/sku-2", "w", ITEM, 400, "INVALID_ID"),
                c("item id 129 chars", "PUT", S + "/items/" + "a".repeat(129), "w", ITEM, 400, "INVALID_ID"),
                c("malformed json", "PUT", S + "/items/sku-2", "w", "{\"attributes\":", 400, "INVALID_BODY"),
                c("body is an array", "PUT", S + "/items/sku-2", "w", "[]", 400, "INVALID_BODY"),
                c("attributes missing", "PUT", S + "/items/sku-2", "w", "{}", 400, "INVALID_BODY"),
                c("attributes a string", "PUT", S + "/items/sku-2", "w", "{\"attributes\":\"x\"}", 400,
                        "INVALID_BODY"),
                c("expectedRevision negative", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{},\"expectedRevision\":-1}", 400, "INVALID_BODY"),
                c("expectedRevision a string", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{},\"expectedRevision\":\"1\"}", 400, "INVALID_BODY"),
                c("body over 1 MiB", "PUT", S + "/items/sku-2", "w", big, 413, "PAYLOAD_TOO_LARGE"),
                c("streamed body over 1 MiB", "PUT-CHUNKED", S + "/items/sku-2", "w", big, 413, "PAYLOAD_TOO_LARGE"),
                c("mapping without target", "PUT", S + "/mappings/m-1", "w", "{\"source\":\"a\"}", 400,
                        "INVALID_BODY"),
                c("mapping source a number", "PUT", S + "/mappings/m-1", "w", "{\"source\":1,\"target\":\"b\"}", 400,
                        "INVALID_BODY"),
                c("policy without rules", "PUT", S + "/policies/p-1", "w", "{}", 400, "INVALID_BODY"),
                c("release bad visibility", "PUT", S + "/releases/r-1", "w",
                        "{\"visibility\":\"SECRET\",\"items\":[]}", 400, "INVALID_BODY"),
                c("release items not array", "PUT", S + "/releases/r-1", "w",
                        "{\"visibility\":\"PUBLIC\",\"items\":{}}", 400, "INVALID_BODY"),
                c("release revision 0", "PUT", S + "/releases/r-1", "w",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"sku-1\",\"revision\":0}]}", 400,
                        "INVALID_BODY"),
                c("release names a missing revision", "PUT", S + "/releases/r-1", "w",
                        "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"sku-1\",\"revision\":9}]}", 409,
                        "REVISION_CONFLICT"),
                c("transaction without changes", "POST", S + "/transactions", "w", "{\"changes\":[]}", 400,
                        "INVALID_BODY"),
                c("transaction unknown op", "POST", S + "/transactions", "w",
                        "{\"changes\":[{\"op\":\"dropTable\"}]}", 400, "INVALID_BODY"),
                c("transaction with one invalid change", "POST", S + "/transactions", "w",
                        "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{}},"
                                + "{\"op\":\"upsertMapping\",\"mappingId\":\"m\"}]}", 400, "INVALID_BODY"),
                c("transaction whose second change conflicts", "POST", S + "/transactions", "w",
                        "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{}},"
                                + "{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{},"
                                + "\"expectedRevision\":7}]}", 409, "REVISION_CONFLICT"),
                c("delete a missing item", "DELETE", S + "/items/nope", "w", null, 404, "NOT_FOUND"),
                c("stale expectedRevision", "PUT", S + "/items/sku-1", "w",
                        "{\"attributes\":{},\"expectedRevision\":5}", 409, "REVISION_CONFLICT"),
                c("unknown path", "GET", S + "/nothing-here", "w", null, 404, "NOT_FOUND"),
                c("wrong method", "POST", S + "/items/sku-1", "w", ITEM, 405, "METHOD_NOT_ALLOWED"),
                c("cursor of an unknown stream", "GET", "/v1/streams/acme/never/cursor", "op", null, 404,
                        "NOT_FOUND"),
                // one past each limit of JsonLimits (the system test shows a write at each limit propagates)
                c("attributes nested one level too deep", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":" + nested(JsonLimits.MAX_DEPTH + 1) + "}", 400, "INVALID_BODY"),
                c("policy rules nested one level too deep", "PUT", S + "/policies/p-1", "w",
                        "{\"rules\":" + nested(JsonLimits.MAX_DEPTH + 1) + "}", 400, "INVALID_BODY"),
                c("attribute string one character too long", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"s\":\"" + "x".repeat(JsonLimits.MAX_STRING_CHARS + 1) + "\"}}", 400,
                        "INVALID_BODY"),
                c("attribute name one character too long", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"" + "k".repeat(JsonLimits.MAX_KEY_CHARS + 1) + "\":1}}", 400,
                        "INVALID_BODY"),
                c("attributes with one member too many", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":" + members(JsonLimits.MAX_MEMBERS + 1) + "}", 400, "INVALID_BODY"),
                c("attribute text one byte over", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":" + text(JsonLimits.MAX_TEXT_BYTES + 1) + "}", 400, "INVALID_BODY"),
                c("a body under the cap whose wire is over the limit", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"n\":[" + "1e6,".repeat(240_000) + "1]}}", 400, "INVALID_BODY"),
                c("the same in a transaction", "POST", S + "/transactions", "w",
                        "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{\"n\":["
                                + "1e6,".repeat(240_000) + "1]}}]}", 400, "INVALID_BODY"),
                // the text rule: U+0000 and unpaired surrogates anywhere in a body or a query
                c("NUL in an attribute value", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"n\":\"a\\u0000b\"}}", 400, "INVALID_BODY"),
                c("NUL in an attribute name", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"a\\u0000\":1}}", 400, "INVALID_BODY"),
                c("unpaired surrogate in an attribute value", "PUT", S + "/items/sku-2", "w",
                        "{\"attributes\":{\"n\":\"a\\ud800b\"}}", 400, "INVALID_BODY"),
                c("NUL in policy rules", "PUT", S + "/policies/p-1", "w",
                        "{\"rules\":{\"r\":[\"\\u0000\"]}}", 400, "INVALID_BODY"),
                c("NUL in a mapping source", "PUT", S + "/mappings/m-1", "w",
                        "{\"source\":\"a\\u0000\",\"target\":\"b\"}", 400, "INVALID_BODY"),
                c("unpaired surrogate in a mapping target", "PUT", S + "/mappings/m-1", "w",
                        "{\"source\":\"a\",\"target\":\"\\udfff\"}", 400, "INVALID_BODY"),
                c("NUL in a member of a transaction change", "POST", S + "/transactions", "w",
                        "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"sku-9\",\"attributes\":{},"
                                + "\"note\":\"\\u0000\"}]}", 400, "INVALID_BODY"),
                c("NUL in a member of a release", "PUT", S + "/releases/r-1", "w",
                        "{\"visibility\":\"PUBLIC\",\"items\":[],\"note\":\"\\u0000\"}", 400, "INVALID_BODY"),
                c("NUL in a query parameter", "DELETE", S + "/items/sku-1?expectedRevision=%00", "w", null, 400,
                        "INVALID_BODY"),
                c("a query parameter that is no number", "DELETE", S + "/items/sku-1?expectedRevision=abc", "w", null,
                        400, "INVALID_BODY"),
                // the import's cap is on its exact route only
                c("a write to an item named bootstrap-import over the body cap", "PUT",
                        S + "/items/bootstrap-import", "w", "{\"attributes\":{\"blob\":\"" + "x".repeat(3 << 20)
                                + "\"}}", 413, "PAYLOAD_TOO_LARGE"));
    }

    static String nested(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    }

    static String members(int n) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":1");
        }
        return b.append('}').toString();
    }

    /** Attributes whose strings hold exactly {@code bytes} bytes (ASCII), each within the string limit. */
    static String text(int bytes) {
        StringBuilder b = new StringBuilder("{\"n\":0");
        for (int i = 0; bytes > 0; i++) {
            int n = Math.min(bytes, JsonLimits.MAX_STRING_CHARS);
            b.append(",\"s").append(i).append("\":\"").append("x".repeat(n)).append('"');
            bytes -= n;
        }
        return b.append('}').toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void refusedWithProblemAndNothingWritten(String name, String method, String path, String token, String body,
            int status, String code) throws Exception {
        Map<String, Long> before = fingerprint();
        Response res = send(method, path, token, body);
        assertThat(res.status()).as(name + ": " + res.body()).isEqualTo(status);
        assertThat(res.contentType()).as(name).startsWith("application/problem+json");
        JsonNode problem = json.readTree(res.body());
        assertThat(problem.path("code").stringValue()).as(name).isEqualTo(code);
        assertThat(problem.path("status").intValue()).as(name).isEqualTo(status);
        assertThat(problem.path("detail").stringValue()).as(name).isNotBlank()
                // no Java type names, no database text
                .doesNotContainPattern("java\\.|Exception|PSQL|ERROR:|\\bInteger\\b|\\bLong\\b|\\bString\\b");
        assertThat(fingerprint()).as(name + ": database unchanged").isEqualTo(before);
    }

    private Response send(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : method.equals("PUT-CHUNKED")
                        ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body.getBytes()))
                        : HttpRequest.BodyPublishers.ofString(body);
        b.method(method.equals("PUT-CHUNKED") ? HttpMethod.PUT.name() : method, publisher);
        HttpResponse<String> res = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(res.statusCode(), res.headers().firstValue("Content-Type").orElse(""), res.body());
    }

    private Map<String, Long> fingerprint() {
        Map<String, Long> m = new java.util.TreeMap<>();
        for (String table : List.of("outbox", "accepted_revision", "item", "mapping", "policy", "release",
                "stream_cursor")) {
            m.put(table, jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single());
        }
        m.put("position", jdbc.sql("SELECT coalesce(sum(position), 0) FROM stream_cursor").query(Long.class).single());
        return m;
    }

    private static Arguments c(String name, String method, String path, String token, String body, int status,
            String code) {
        return Arguments.of(name, method, path, token, body, status, code);
    }

    private record Response(int status, String contentType, String body) {
    }
}
