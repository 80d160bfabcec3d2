package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Opening a stream costs what the stream holds (docs/streams.md): a listed stream the resolver still retains from
 * position 1 starts from an empty generation and catches up from the retained events, with no lease and no export;
 * a pruned one is rebuilt; one without any write yet waits for its first write instead of failing a rebuild.
 */
@ProductWithRecovery(properties = {
        "product.consumer-id=product-open", "product.recovery.instance-id=open-node",
        "product.recovery.interval=PT10M", "product.recovery.page-limit=7",
        "product.streams=acme/small,acme/pruned,acme/unwritten"})
class StreamOpeningIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();

    static {
        // what the resolver holds before the product starts
        RESOLVER.stream("small").events = history("small", 12, 5);
        RESOLVER.stream("pruned").events = history("pruned", 6, 7);
        RESOLVER.stream("pruned").prunedThrough = 4;
        RESOLVER.stream("unwritten").statusAnswer = 404;
    }

    @DynamicPropertySource
    static void resolverUrl(DynamicPropertyRegistry registry) {
        registry.add("product.resolver-url", RESOLVER::baseUrl);
    }

    @AfterAll
    static void close() {
        RESOLVER.close();
    }

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    RecoveryWorker worker;

    @Test
    void aRetainedStreamOpensWithoutAnExportAndCatchesUpFromItsRetainedEvents() {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode c = completeness("small");
            assertThat(c.path("verifiedThrough").asLong()).as("%s", c).isEqualTo(12);
            assertThat(c.path("state").asString()).as("%s", c).isEqualTo("CURRENT");
        });
        // no rebuild: the only path that leases and exports
        assertThat(rebuildsOf("small")).isZero();
        // registered as the stream's consumer, so the relay delivers what follows
        assertThat(RESOLVER.requests).contains("POST /v1/retention/consumers");
        // 12 events in pages of 7
        assertThat(RESOLVER.stream("small").pagesServed.get()).isBetween(2, 3);
    }

    @Test
    void aPrunedStreamIsRebuiltFromAnExport() {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(rebuildsOf("pruned")).isPositive());
    }

    @Test
    void aStreamWithoutAnyWriteWaitsForItsFirstWrite() {
        StreamId s = new StreamId("acme", "unwritten");
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.IDLE);
        assertThat(rebuildsOf("unwritten")).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM generation WHERE catalog = 'unwritten'").query(Long.class).single())
                .isZero();

        // its first writes: the next cycle opens it at 0 and the one after catches it up
        RESOLVER.stream("unwritten").events = history("unwritten", 3, 9);
        RESOLVER.stream("unwritten").statusAnswer = 200;
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.MORE);
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.CONTINUE)).isEqualTo(RecoveryWorker.Outcome.CAUGHT_UP);
        assertThat(completeness("unwritten").path("verifiedThrough").asLong()).isEqualTo(3);
        assertThat(rebuildsOf("unwritten")).isZero();
    }

    private JsonNode completeness(String catalog) {
        return RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { })
                .defaultHeader("Authorization", "Bearer op").build()
                .get().uri("/v1/projection-completeness?tenant=acme&catalog=" + catalog).retrieve()
                .body(JsonNode.class);
    }

    private long rebuildsOf(String catalog) {
        return jdbc.sql("SELECT count(*) FROM rebuild WHERE catalog = ?").params(catalog).query(Long.class).single();
    }

    private static List<ChainWriter.Event> history(String catalog, int n, long seed) {
        CatalogHistory h = new CatalogHistory(new Random(seed));
        return new ChainWriter(new StreamId("acme", catalog), 1, new Random(seed + 1)).appendAll(h.random(n));
    }
}
