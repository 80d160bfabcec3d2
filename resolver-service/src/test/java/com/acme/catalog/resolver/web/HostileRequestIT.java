package com.acme.catalog.resolver.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Requests the service must refuse cleanly, as problem+json with a contract code: an {@code Accept} without JSON,
 * and what Tomcat refuses before any filter runs ({@code %00} and {@code %5C} in a path, a 20 KB header), sent
 * byte for byte over a socket so no client library normalizes them.
 */
@ExtendWith(OutputCaptureExtension.class)
class HostileRequestIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;

    @Test
    void anAcceptWithoutJsonIs406ProblemJsonWithoutAnErrorLog(CapturedOutput output) throws Exception {
        call(HttpMethod.PUT, "/v1/streams/acme/shoes/items/a", "w", "{\"attributes\":{}}");
        Raw res = send("GET /v1/streams/acme/shoes/cursor HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer op\r\nAccept: application/xml\r\nConnection: close\r\n\r\n");
        assertThat(res.status()).as(res.text()).isEqualTo(406);
        assertThat(res.header("content-type")).startsWith("application/problem+json");
        assertThat(res.body()).contains("\"code\":\"NOT_ACCEPTABLE\"");
        assertThat(output.getOut() + output.getErr()).doesNotContain("HttpMediaTypeNotAcceptableException")
                .doesNotContain(" ERROR ");
    }

    @Test
    void aWriteWithAnAcceptWithoutJsonIs406Too() throws Exception {
        String body = "{\"attributes\":{\"n\":1}}";
        Raw res = send("PUT /v1/streams/acme/accept/items/a HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer w\r\nAccept: application/xml\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
        assertThat(res.status()).as(res.text()).isEqualTo(406);
        assertThat(res.header("content-type")).startsWith("application/problem+json");
        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE catalog = 'accept'").query(Long.class).single())
                .as("refused before the write").isZero();
        // JSON among the accepted types (or any type) is fine
        Raw ok = send("GET /v1/streams/acme/accept/cursor HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer op\r\n"
                + "Accept: application/xml, application/json;q=0.5\r\nConnection: close\r\n\r\n");
        assertThat(ok.status()).as(ok.text()).isIn(200, 404);
        assertThat(ok.header("content-type")).doesNotContain("xml");
    }

    @Test
    void scrapersKeepTheirOwnAcceptAndTheRelaysOversizeCounterIsThere() throws Exception {
        for (String accept : new String[] {"text/plain;version=0.0.4", "application/openmetrics-text;version=1.0.0"}) {
            Raw res = send("GET /actuator/prometheus HTTP/1.1\r\nHost: localhost\r\nAccept: " + accept
                    + "\r\nConnection: close\r\n\r\n");
            assertThat(res.status()).as(accept).isEqualTo(200);
            assertThat(res.body()).as(accept).contains("resolver_relay_oversized_events_total");
        }
    }

    @Test
    void tomcatsOwnRefusalsAnswerProblemJson() throws Exception {
        for (String path : new String[] {"/v1/streams/acme/sh%00oes/cursor", "/v1/streams/acme/sh%5Coes/cursor",
                "/v1/streams/acme/shoes/items/a%5C..%5Cb"}) {
            Raw res = send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer op\r\n"
                    + "Connection: close\r\n\r\n");
            assertThat(res.status()).as(path + ": " + res.text()).isEqualTo(400);
            assertThat(res.header("content-type")).as(path + ": " + res.text())
                    .startsWith("application/problem+json");
            assertThat(res.body()).as(path).contains("\"status\":400").contains("\"code\":\"INVALID_ID\"")
                    .doesNotContain("<html").doesNotContain("Tomcat");
        }
        Raw big = send("GET /v1/streams/acme/shoes/cursor HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer op\r\n"
                + "X-Filler: " + "f".repeat(20 * 1024) + "\r\nConnection: close\r\n\r\n");
        assertThat(big.status()).as(big.text()).isEqualTo(400);
        assertThat(big.header("content-type")).as(big.text()).startsWith("application/problem+json");
        assertThat(big.body()).contains("\"status\":400").doesNotContain("<html");
    }

    @Test
    void theImportCapDoesNotApplyToAWriteEndingInBootstrapImport() {
        // 2 MiB: over the write cap, far under the import cap
        String body = "{\"attributes\":{\"blob\":\"" + "x".repeat(2 << 20) + "\"}}";
        Response res = call(HttpMethod.PUT, "/v1/streams/acme/capped/items/bootstrap-import", "w", body);
        assertThat(res.status()).as(res.raw()).isEqualTo(413);
        assertThat(res.code()).isEqualTo("PAYLOAD_TOO_LARGE");
        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE catalog = 'capped'").query(Long.class).single())
                .isZero();
        // the import route itself still takes a body over the write cap (and refuses it for its content)
        Response imported = call(HttpMethod.POST, "/v1/streams/acme/capped/bootstrap-import", "op",
                "[" + " ".repeat(2 << 20) + "]");
        assertThat(imported.status()).as(imported.raw()).isEqualTo(400);
        assertThat(imported.code()).isEqualTo("INVALID_BODY");
        assertThat(imported.raw()).contains("empty");
    }

    private Raw send(String request) throws Exception {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            try {
                while ((n = in.read(buf)) > 0) {
                    all.write(buf, 0, n);
                }
            } catch (java.net.SocketException reset) {
                // the server may close after answering a refused request
            }
            return new Raw(all.toString(StandardCharsets.UTF_8));
        }
    }

    record Raw(String text) {
        int status() {
            return Integer.parseInt(text.substring(9, 12));
        }

        String header(String name) {
            for (String line : text.substring(0, Math.max(0, text.indexOf("\r\n\r\n"))).split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return "";
        }

        String body() {
            int at = text.indexOf("\r\n\r\n");
            return at < 0 ? "" : text.substring(at + 4);
        }
    }
}
