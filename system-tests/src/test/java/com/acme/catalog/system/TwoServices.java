package com.acme.catalog.system;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The resolver and the product, each from its jar on its own fresh database, wired together: the product reports
 * progress with a consumer token, the resolver relays with the relay token. Tokens: op (operator), w (writer),
 * r (relay), c (consumer).
 */
final class TwoServices implements AutoCloseable {

    static final String TOKENS = "op=operator;w=writer;r=relay;c=consumer";
    static final JsonMapper JSON = JsonMapper.builder().build();

    final TestDatabase resolverDb = TestDatabase.create("sys_resolver");
    final TestDatabase productDb = TestDatabase.create("sys_product");
    final TestDatabase controlDb = TestDatabase.create("sys_control");
    /** Both services' object store (exports written by the resolver, read by the product's rebuild). */
    final java.nio.file.Path objects = createObjectDir();
    final int resolverPort = freePort();
    final int productPort = freePort();
    /** The product's PRODUCT_STREAMS ({@link #serve}): the only streams a delivery may start. */
    private final java.util.Set<String> served = new java.util.LinkedHashSet<>();
    ServiceProcess resolver;
    ServiceProcess product;
    private final HttpClient http = HttpClient.newHttpClient();

    void startResolver() throws Exception {
        startResolver(Map.of());
    }

    /** Starts the resolver with {@code extra} environment variables on top of the defaults. */
    void startResolver(Map<String, String> extra) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of(
                "SPRING_DATASOURCE_URL", resolverDb.jdbcUrl(),
                "SPRING_DATASOURCE_USERNAME", resolverDb.username(),
                "CONTROL_DATASOURCE_URL", controlDb.jdbcUrl(),
                "CONTROL_DATASOURCE_USERNAME", controlDb.username(),
                "RELAY_TOKEN", "r",
                // the relay sends its token only to the product's inbox
                "RELAY_ALLOWED_DELIVERY_URLS", productUrl() + "/v1/inbox/",
                "OBJECT_STORE_URI", "file:" + objects.toAbsolutePath(),
                "SECURITY_TOKENS", TOKENS));
        env.putAll(extra);
        resolver = ServiceProcess.start("resolver-service", resolverPort, env);
    }

    /** Starts the product; {@code resolverUrl} lets a test point its progress reports at nothing. */
    void startProduct(String resolverUrl) throws Exception {
        startProduct(resolverUrl, Map.of());
    }

    /** Starts the product with {@code extra} environment variables on top of the defaults. */
    void startProduct(String resolverUrl, Map<String, String> extra) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of(
                "SPRING_DATASOURCE_URL", productDb.jdbcUrl(),
                "SPRING_DATASOURCE_USERNAME", productDb.username(),
                "RESOLVER_URL", resolverUrl,
                "RESOLVER_TOKEN", "c",
                "PRODUCT_CONSUMER_ID", "product-1",
                "PRODUCT_DELIVERY_URL", productUrl() + "/v1/inbox/events",
                "SECURITY_TOKENS", TOKENS,
                "OBJECT_STORE_URI", "file:" + objects.toAbsolutePath(),
                "SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":{\"resync-interval\":\"PT1S\"}}}"));
        if (!served.isEmpty()) {
            env.put("PRODUCT_STREAMS", String.join(",", served));
        }
        env.putAll(extra);
        product = ServiceProcess.start("product-service", productPort, env);
    }

    /**
     * Lists the stream in the product's PRODUCT_STREAMS from its next start on: a delivery never opens a stream
     * the product was not told to serve (or bootstrapped with a rebuild).
     */
    TwoServices serve(String tenant, String catalog) {
        served.add(tenant + "/" + catalog);
        return this;
    }

    String resolverUrl() {
        return "http://localhost:" + resolverPort;
    }

    String productUrl() {
        return "http://localhost:" + productPort;
    }

    /** Writes {@code items} items {@code seed-0…} and a PUBLIC release {@code seed} naming {@code publicItem}. */
    void seed(String tenant, String catalog, int items, String publicItem) throws Exception {
        String s = resolverUrl() + "/v1/streams/" + tenant + "/" + catalog;
        for (int i = 0; i < items; i++) {
            ok("PUT", s + "/items/seed-" + i, "w", "{\"attributes\":{\"name\":\"Seed " + i + "\"}}");
        }
        ok("PUT", s + "/releases/seed", "w",
                "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"" + publicItem + "\",\"revision\":1}]}");
    }

    /** The checksum profiles every convergence check compares: current accepted state and what readers are served. */
    static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");

    /** The resolver's {@code state-checksum} or the product's {@code projection-checksum} of the stream. */
    JsonNode checksum(String tenant, String catalog, String kind) throws Exception {
        return checksum(tenant, catalog, kind, null);
    }

    /** The same with {@code ?profile=} (null: the default, {@code accepted-state-v1}). */
    JsonNode checksum(String tenant, String catalog, String kind, String profile) throws Exception {
        String base = kind.equals("state-checksum") ? resolverUrl() : productUrl();
        return ok("GET", base + "/v1/streams/" + tenant + "/" + catalog + "/" + kind
                + (profile == null ? "" : "?profile=" + profile), "op", null);
    }

    /**
     * Waits until the product has processed the resolver's head, then requires the product's projection-checksum to
     * equal the resolver's state-checksum at that position under every profile of {@link #PROFILES}.
     *
     * @return the resolver's public-view-v1 answer (callers check that the view is not trivially empty)
     */
    JsonNode assertConverged(String tenant, String catalog) throws Exception {
        long head = ok("GET", resolverUrl() + "/v1/streams/" + tenant + "/" + catalog + "/cursor", "op", null)
                .path("position").longValue();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() ->
                checksum(tenant, catalog, "projection-checksum").path("position").longValue() == head);
        JsonNode view = null;
        for (String profile : PROFILES) {
            JsonNode product = checksum(tenant, catalog, "projection-checksum", profile);
            JsonNode resolver = checksum(tenant, catalog, "state-checksum", profile);
            org.assertj.core.api.Assertions.assertThat(resolver.path("profile").stringValue()).isEqualTo(profile);
            org.assertj.core.api.Assertions.assertThat(product.path("profile").stringValue()).isEqualTo(profile);
            org.assertj.core.api.Assertions.assertThat(product.path("position")).as(profile)
                    .isEqualTo(resolver.path("position"));
            org.assertj.core.api.Assertions.assertThat(product.path("tables")).as("%s of %s/%s", profile, tenant,
                    catalog).isEqualTo(resolver.path("tables"));
            view = resolver;
        }
        return view;
    }

    /** Registers the product as a push consumer of the stream from an empty start. */
    void registerProduct(String tenant, String catalog) throws Exception {
        Response r = call("POST", resolverUrl() + "/v1/retention/consumers", "c",
                "{\"consumerId\":\"product-1\",\"tenant\":\"" + tenant + "\",\"catalog\":\"" + catalog
                        + "\",\"epoch\":1,\"deliveryUrl\":\"" + productUrl() + "/v1/inbox/events\"}");
        if (r.status() != 201) {
            throw new IllegalStateException("registration answered " + r.status() + ": " + r.body());
        }
    }

    Response call(String method, String url, String token, String body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(res.statusCode(), res.body());
    }

    JsonNode ok(String method, String url, String token, String body) throws IOException, InterruptedException {
        Response r = call(method, url, token, body);
        if (r.status() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + r.status() + ": " + r.body());
        }
        return r.json();
    }

    static List<Map<String, Object>> rows(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<Map<String, Object>> out = new ArrayList<>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Map<String, Object> row = new java.util.LinkedHashMap<>();
                for (int i = 1; i <= n; i++) {
                    row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                }
                out.add(row);
            }
            return out;
        }
    }

    static long scalar(TestDatabase db, String sql) throws SQLException {
        return ((Number) rows(db, sql).get(0).values().iterator().next()).longValue();
    }

    @Override
    public void close() throws Exception {
        if (product != null) {
            product.close();
        }
        if (resolver != null) {
            resolver.close();
        }
        resolverDb.close();
        productDb.close();
        controlDb.close();
    }

    private static java.nio.file.Path createObjectDir() {
        try {
            return java.nio.file.Files.createTempDirectory("sys-objects");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    record Response(int status, String body) {
        JsonNode json() {
            return JSON.readTree(body);
        }
    }
}
