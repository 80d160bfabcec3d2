package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;
import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The relay holds a stream while an import's fence is up: a push consumer subscribed to the tenant gets nothing of
 * the stream during the import (its chunks' commit notifications included), while another stream's writes reach it;
 * once the fence is released the whole import is delivered, in order, promptly (the poll interval is a minute, so
 * only the release's notification can explain it).
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=r", "relay.poll-interval=PT60S",
        "relay.backoff-initial=PT0.2S", "relay.backoff-max=PT1S", "retention.prune.enabled=false"})
class ImportFenceRelayIT extends ResolverIT {

    @Autowired
    BootstrapImporter importer;
    @Autowired
    ObjectMapper json;

    @TempDir
    Path dir;

    @Test
    void theRelayDeliversNothingOfTheStreamUntilTheImportEnded() throws Exception {
        List<JsonNode> delivered = new CopyOnWriteArrayList<>();
        HttpServer consumer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        consumer.createContext("/inbox", ex -> {
            JsonNode body = json.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            body.path("events").forEach(delivered::add);
            byte[] answer = "{\"results\":[]}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        consumer.start();
        try {
            Response sub = post("/v1/retention/consumers", "op", Map.of("consumerId", "fence-relay", "tenant", "relayed",
                    "catalog", "*", "deliveryUrl", "http://127.0.0.1:" + consumer.getAddress().getPort() + "/inbox"));
            assertThat(sub.status()).as(sub.raw()).isEqualTo(201);
            Path file = dir.resolve("events.json");
            SnapshotEventsGenerator.write(file, 1_000, 12);

            ImportReport report = importer.importFile(new StreamId("relayed", "held"), file,
                    ImportOptions.defaults().withChunkEvents(50), new ImportListener() {
                        @Override
                        public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
                            if (chunk == 10) {
                                // another stream of the tenant is relayed meanwhile
                                put("/v1/streams/relayed/other/items/o-1", "w", Map.of("attributes", Map.of()));
                                await().atMost(Duration.ofSeconds(20)).until(() -> stream(delivered, "other") == 1);
                                sleep(1_000);
                                assertThat(stream(delivered, "held")).as("held while fenced").isZero();
                            }
                        }
                    });
            assertThat(report.status()).isEqualTo(ImportReport.Status.COMPLETED);
            assertThat(report.summary().outboxLagAtEnd()).isEqualTo(1_000L);
            long released = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).until(() -> stream(delivered, "held") == 1_000);
            assertThat((System.nanoTime() - released) / 1_000_000).as("woken by the release").isLessThan(10_000);
            List<Long> positions = delivered.stream().filter(e -> e.path("catalog").stringValue().equals("held"))
                    .map(e -> e.path("position").longValue()).toList();
            for (int i = 0; i < positions.size(); i++) {
                assertThat(positions.get(i)).isEqualTo(i + 1L);
            }
        } finally {
            consumer.stop(0);
        }
    }

    private static long stream(List<JsonNode> delivered, String catalog) {
        return delivered.stream().filter(e -> e.path("catalog").stringValue().equals(catalog)).count();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
