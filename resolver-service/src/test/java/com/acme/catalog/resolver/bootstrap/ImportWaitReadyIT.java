package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.acme.catalog.resolver.support.ResolverIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * {@code waitReady=true} against a stand-in product: it answers once the product reports the stream current at the
 * import's epoch and last position with both checksum profiles equal (the stand-in holds exactly the resolver's
 * state: it answers the resolver's own checksums); a product that stays behind, whose copy differs, or that does not
 * answer, makes it 504 {@code PRODUCT_NOT_READY} naming which, with the summary.
 */
class ImportWaitReadyIT extends ResolverIT {

    private static final FakeProduct PRODUCT = new FakeProduct();

    @LocalServerPort
    int resolverPort;

    @TempDir
    Path dir;

    @DynamicPropertySource
    static void product(DynamicPropertyRegistry r) {
        r.add("bootstrap.ready.product-url", () -> "http://127.0.0.1:" + PRODUCT.port());
        r.add("bootstrap.ready.product-token", () -> "product-op");
        r.add("bootstrap.ready.timeout", () -> "PT3S");
        r.add("bootstrap.ready.poll-interval", () -> "PT0.1S");
    }

    @AfterAll
    static void stop() {
        PRODUCT.server.stop(0);
    }

    @Test
    void answersOnceTheProductServesTheImportWithEqualChecksums() throws IOException {
        PRODUCT.mode = "mirror";
        PRODUCT.resolver = "http://localhost:" + resolverPort;
        Response r = importWaiting("ready", 400);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        JsonNode v = r.body().path("verification");
        assertThat(v.path("ready").asBoolean()).isTrue();
        assertThat(v.path("productState").stringValue()).isEqualTo("CURRENT");
        assertThat(v.path("checksums").path("accepted-state-v1").path("equal").asBoolean()).isTrue();
        assertThat(v.path("checksums").path("public-view-v1").path("equal").asBoolean()).isTrue();
        assertThat(r.body().path("readyMs").isNumber()).isTrue();
        assertThat(r.body().path("outboxLagAtEnd").asLong()).isZero();
        assertThat(r.body().path("skippedEvents").asLong()).isZero();
        assertThat(r.body().path("duplicateEvents").asLong()).isZero();
        assertThat(r.body().path("diagnosticFallbacks").asInt()).isZero();
        assertThat(PRODUCT.authorization).isEqualTo("Bearer product-op");
    }

    @Test
    void aProductThatStaysBehindOrDiffersIs504NamingWhich() throws IOException {
        PRODUCT.mode = "behind";
        Response behind = importWaiting("behind", 300);
        assertThat(behind.status()).as(behind.raw()).isEqualTo(504);
        assertThat(behind.code()).isEqualTo("PRODUCT_NOT_READY");
        assertThat(behind.text("detail")).contains("the product reports the stream CATCHING_UP");
        assertThat(behind.body().path("import").path("status").stringValue()).isEqualTo("COMPLETED");
        assertThat(behind.body().path("import").path("verification").path("ready").asBoolean()).isFalse();

        PRODUCT.mode = "differs";
        PRODUCT.resolver = "http://localhost:" + resolverPort;
        Response differs = importWaiting("differs", 300);
        assertThat(differs.status()).as(differs.raw()).isEqualTo(504);
        assertThat(differs.text("detail")).contains("public-view-v1 differs");
    }

    @Test
    void aProductThatDoesNotAnswerIs504() throws IOException {
        PRODUCT.mode = "down";
        Response r = importWaiting("down", 50);
        assertThat(r.status()).as(r.raw()).isEqualTo(504);
        assertThat(r.text("detail")).contains("the product could not be asked");
    }

    private Response importWaiting(String catalog, int events) throws IOException {
        Path file = dir.resolve(catalog + ".json");
        SnapshotEventsGenerator.write(file, events, 3);
        return post("/v1/streams/acme/wait-" + catalog + "/bootstrap-import?waitReady=true", "op",
                Files.readString(file));
    }

    /**
     * Answers the product's completeness and projection checksums: {@code mirror} current at the resolver's cursor
     * with the resolver's own checksums, {@code behind} catching up, {@code differs} current with a public view that
     * is not the resolver's, {@code down} 503.
     */
    static final class FakeProduct {
        final HttpServer server;
        volatile String mode = "down";
        volatile String resolver;
        volatile String authorization;
        private final HttpClient http = HttpClient.newHttpClient();

        FakeProduct() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            server.createContext("/", this::handle);
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        private void handle(HttpExchange ex) throws IOException {
            authorization = ex.getRequestHeaders().getFirst("Authorization");
            String path = ex.getRequestURI().getPath();
            String query = ex.getRequestURI().getQuery();
            if (mode.equals("down")) {
                answer(ex, 503, "{\"code\":\"MAINTENANCE\"}");
                return;
            }
            try {
                if (path.equals("/v1/projection-completeness")) {
                    String stream = query.replaceAll("tenant=([^&]+)&catalog=([^&]+)", "$1/$2");
                    JsonNode cursor = resolverGet("/v1/streams/" + stream + "/cursor");
                    String state = mode.equals("behind") ? "CATCHING_UP" : "CURRENT";
                    answer(ex, 200, "{\"epoch\":" + cursor.path("epoch").asLong() + ",\"verifiedThrough\":"
                            + cursor.path("position").asLong() + ",\"state\":\"" + state + "\"}");
                    return;
                }
                if (path.endsWith("/projection-checksum")) {
                    String stream = path.substring("/v1/streams/".length(), path.length()
                            - "/projection-checksum".length());
                    String body = resolverText("/v1/streams/" + stream + "/state-checksum?" + query);
                    if (mode.equals("differs") && query.contains("public-view")) {
                        body = body.replaceAll("\"sha256\":\"[0-9a-f]+\"", "\"sha256\":\"" + "0".repeat(64) + "\"");
                    }
                    answer(ex, 200, body);
                    return;
                }
                answer(ex, 404, "{\"code\":\"NOT_FOUND\"}");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer(ex, 500, "{}");
            }
        }

        private JsonNode resolverGet(String path) throws IOException, InterruptedException {
            return tools.jackson.databind.json.JsonMapper.builder().build().readTree(resolverText(path));
        }

        private String resolverText(String path) throws IOException, InterruptedException {
            return http.send(HttpRequest.newBuilder(URI.create(resolver + path)).header("Authorization", "Bearer op")
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        }

        private static void answer(HttpExchange ex, int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        }
    }
}
