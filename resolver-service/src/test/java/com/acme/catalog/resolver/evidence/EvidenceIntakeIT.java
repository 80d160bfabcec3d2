package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * Evidence intake: the body is stored as sent under the private prefix, deduplicated by (tenant, SHA-256) even when
 * the same bytes arrive concurrently, capped by {@code evidence.max-bytes} on its own route (above the general 1 MiB
 * cap) with nothing stored beyond it, and the same bytes again heal an artifact flagged missing.
 */
@TestPropertySource(properties = "evidence.max-bytes=3MB")
class EvidenceIntakeIT extends EvidenceIT {

    private static final int CAP = 3 * 1024 * 1024;

    @Test
    void concurrentIntakesOfTheSameBytesMakeOneArtifactAndOneObject() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 5; round++) {
                byte[] body = random(256 * 1024, round);
                int objectsBefore = store.list("evidence/dedupe/").size();
                CyclicBarrier start = new CyclicBarrier(8);
                List<Future<Response>> answers = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    answers.add(pool.submit(() -> {
                        start.await();
                        return intake("dedupe", "w", body, "application/octet-stream");
                    }));
                }
                Set<String> ids = new HashSet<>();
                int created = 0;
                for (Future<Response> f : answers) {
                    Response r = f.get(60, TimeUnit.SECONDS);
                    assertThat(r.status()).as(r.raw()).isIn(200, 201);
                    created += r.status() == 201 ? 1 : 0;
                    ids.add(r.text("artifactId"));
                }
                assertThat(ids).as("round %d", round).hasSize(1);
                assertThat(created).as("round %d", round).isEqualTo(1);
                assertThat(store.list("evidence/dedupe/")).hasSize(objectsBefore + 1)
                        .contains("evidence/dedupe/" + ids.iterator().next());
            }
            assertThat(jdbc.sql("SELECT count(*) FROM evidence_artifact WHERE tenant = 'dedupe'").query(Long.class)
                    .single()).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSameBytesInAnotherTenantAreAnotherArtifact() throws Exception {
        byte[] body = "<p>shared page</p>".getBytes();
        Response acme = intake("acme", "w", body, null);
        Response other = intake("other", "w", body, null);
        assertThat(acme.status()).isEqualTo(201);
        assertThat(other.status()).isEqualTo(201);
        assertThat(acme.text("artifactId")).isNotEqualTo(other.text("artifactId"));
        assertThat(acme.text("sha256")).isEqualTo(other.text("sha256"));
        assertThat(acme.text("contentType")).isEqualTo("application/octet-stream");
        assertThat(get("/v1/tenants/other/evidence/" + acme.text("artifactId"), "w").status())
                .as("tenant-scoped").isEqualTo(404);
    }

    @Test
    void evidenceHasItsOwnCapAboveTheGeneralOneAndNothingIsStoredBeyondIt() throws Exception {
        byte[] twoMiB = random(2 * 1024 * 1024, 7);
        Response stored = intake("capped", "w", twoMiB, "image/png");
        assertThat(stored.status()).as("over the general 1 MiB cap, within evidence's").isEqualTo(201);
        assertThat(stored.number("bytes")).isEqualTo(twoMiB.length);
        byte[] atCap = random(CAP, 8);
        assertThat(intake("capped", "w", atCap, "image/png").status()).isEqualTo(201);

        var before = fingerprint();
        byte[] over = random(CAP + 1, 9);
        Response declared = intake("capped", "w", over, "image/png");
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.code()).isEqualTo("PAYLOAD_TOO_LARGE");
        HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(URI.create(base()
                        + "/v1/tenants/capped/evidence")).header("Authorization", "Bearer w")
                .header("Content-Type", "image/png")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(over))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(413);
        assertThat(chunked.body()).contains("PAYLOAD_TOO_LARGE");
        assertThat(fingerprint()).isEqualTo(before);
        try (Stream<Path> files = Files.walk(Path.of(store.describe().substring("file:".length())))) {
            assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .as("no partial upload left behind").noneMatch(n -> n.startsWith(".upload-"));
        }
    }

    @Test
    void theSameBytesAgainHealAnArtifactFlaggedMissing() throws Exception {
        byte[] body = "<p>lost and found</p>".getBytes();
        UUID id = UUID.fromString(intake("heal", "w", body, "text/html").text("artifactId"));
        store.delete("evidence/heal/" + id);
        assertThat(post("/v1/evidence-retention/run?tenant=heal", "op", null).number("newlyMissing")).isEqualTo(1);
        assertThat(get("/v1/tenants/heal/evidence/" + id, "w").text("status")).isEqualTo("MISSING");
        assertThat(get("/v1/tenants/heal/evidence/" + id + "/content", "w").status()).isEqualTo(404);

        Response again = intake("heal", "w", body, "text/html");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text("artifactId")).isEqualTo(id.toString());
        assertThat(get("/v1/tenants/heal/evidence/" + id, "w").text("status")).isEqualTo("PRESENT");
        HttpResponse<byte[]> content = HTTP.send(HttpRequest.newBuilder(URI.create(base()
                + "/v1/tenants/heal/evidence/" + id + "/content")).header("Authorization", "Bearer w").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(content.body()).isEqualTo(body);
        assertThat(store.list("evidence/heal/")).hasSize(1);
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
