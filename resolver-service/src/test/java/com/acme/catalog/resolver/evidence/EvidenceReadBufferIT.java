package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;

import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.context.TestPropertySource;

/**
 * With a socket read buffer larger than the cap, a streamed body still passes the cap inside one read: refused with
 * nothing stored, while a body of exactly the cap is stored with its exact size and SHA-256.
 */
@TestPropertySource(properties = {"evidence.max-bytes=100KB", "http.socket-read-buffer-bytes=262144"})
class EvidenceReadBufferIT extends EvidenceIT {

    private static final int CAP = 100 * 1024;

    @Autowired
    WebServerApplicationContext context;

    @Test
    void theConnectorReadsInTheConfiguredSize() {
        var tomcat = ((TomcatWebServer) context.getWebServer()).getTomcat();
        assertThat(tomcat.getConnector().getProperty("socket.appReadBufSize")).hasToString("262144");
    }

    @Test
    void aStreamedBodyOverTheCapIsRefusedWithNothingStoredAndOneAtTheCapIsStoredExactly() throws Exception {
        byte[] atCap = random(CAP, 11);
        Response stored = intake("buffers", "w", atCap, "application/octet-stream");
        assertThat(stored.status()).isEqualTo(201);
        assertThat(stored.number("bytes")).isEqualTo(CAP);
        assertThat(stored.body().path("sha256").stringValue())
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(atCap)));

        var before = fingerprint();
        for (int over : new int[] {CAP + 1, CAP + 70_000, 3 * CAP}) {
            byte[] body = random(over, over);
            HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(URI.create(base()
                            + "/v1/tenants/buffers/evidence")).header("Authorization", "Bearer w")
                    .header("Content-Type", "application/octet-stream")
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(chunked.statusCode()).as("%d bytes: %s", over, chunked.body()).isEqualTo(413);
            assertThat(chunked.body()).contains("PAYLOAD_TOO_LARGE");
        }
        assertThat(fingerprint()).isEqualTo(before);
        try (Stream<Path> files = Files.walk(Path.of(store.describe().substring("file:".length())))) {
            assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .as("no partial upload left behind").noneMatch(n -> n.startsWith(".upload-"));
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
