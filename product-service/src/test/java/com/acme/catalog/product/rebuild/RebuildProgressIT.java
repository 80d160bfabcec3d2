package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ExportWriter;
import com.acme.catalog.product.support.ProductIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /v1/rebuilds/{id}} tells the running phase's count, rate and time left, and the whole rebuild's
 * (docs/rebuild.md "Progress"); after DONE it keeps the final counts. The export, the shadow load and the rebuild's
 * sequencing run for real (a real export in the object store, a test pause holding the load after its copy); the
 * lease is mocked, the catch-up is a mock that reports pages as the real one does and waits for the test mid-phase,
 * and the cutover and retirement are mocks.
 */
@TestPropertySource(properties = "product.rebuild.test-pause.LOADING=PT5S")
class RebuildProgressIT extends ProductIT {

    @MockitoBean
    LeaseStep lease;
    @MockitoBean
    CatchUpStep catchUp;
    @MockitoBean
    CutoverStep cutover;
    @MockitoBean
    RetireStep retire;
    @MockitoBean
    ResolverClient resolver;
    @Autowired
    RebuildService service;
    @Autowired
    ObjectStore store;
    @Autowired
    MeterRegistry meters;

    @Test
    void theStatusTellsCountsRatesAndTimeLeftMidPhaseAndTheFinalCountsAfter() throws Exception {
        StreamId s = new StreamId("acme", "progress");
        List<ChainWriter.Event> chain = new ChainWriter(s, 1, new Random(3))
                .appendAll(new CatalogHistory(new Random(4)).random(40));
        String key = ExportWriter.write(store, s, chain, chain.size(), "progress-" + UUID.randomUUID());
        ExportManifest manifest;
        try (var in = store.get(key)) {
            manifest = ExportManifest.parse(in.readAllBytes());
        }
        long expectedRows = manifest.objects().stream().mapToLong(ExportManifest.ManifestObject::rows).sum();
        long w = manifest.cursor();
        doAnswer(inv -> new Pinned(inv.getArgument(0), 1, UUID.randomUUID().toString(), mock(LeaseKeeper.class)))
                .when(lease).pinRetention(any());
        doAnswer(inv -> "ready").when(resolver).requestExport(any(), anyString());
        doAnswer(inv -> new ExportView(UUID.randomUUID(), ExportStatus.READY, "acme", "progress", 1, null, null, null,
                key, null, null, null, Instant.now(), null, null)).when(resolver).exportStatus(anyString());
        CountDownLatch midCatchUp = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        doAnswer(inv -> {
            LoadedShadow a = inv.getArgument(0);
            RebuildProgress progress = a.started().progress();
            // as CatchUpStep reports: from W, a page of 5 events with the head 20 events past W
            progress.catchingUp(w);
            Thread.sleep(200);
            progress.page(w + 5, w + 20, 5);
            midCatchUp.countDown();
            assertThat(resume.await(30, TimeUnit.SECONDS)).isTrue();
            progress.page(w + 20, w + 20, 15);
            return new CaughtUp(a, 20, System.nanoTime());
        }).when(catchUp).catchUp(any());
        doAnswer(inv -> new CutOver(inv.getArgument(0), w + 20, java.util.Optional.empty())).when(cutover)
                .cutover(any());

        UUID id = service.start(s);

        // held by the test pause after the copy, before the attach
        // a slow machine may take long to load: wait for the pause, which holds the rebuild 5 s
        Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> {
            JsonNode v = status(id);
            // done reaches total with the last chunk, a little before the load marks its copy finished
            return v.path("phase").stringValue().equals("LOADING")
                    && v.path("progress").path("done").asLong() == expectedRows
                    && !v.path("progress").has("phaseEta");
        });
        JsonNode loading = status(id).path("progress");
        assertThat(loading.path("phase").stringValue()).isEqualTo("LOADING");
        assertThat(loading.path("unit").stringValue()).isEqualTo("rows");
        assertThat(loading.path("total").asLong()).as("the manifest's rows").isEqualTo(expectedRows);
        assertThat(loading.path("ratePerSecond").asDouble()).isPositive();
        assertThat(loading.path("live").booleanValue()).isTrue();
        assertThat(loading.has("eta")).as("the tail is unknown before the catch-up").isFalse();
        assertThat(loading.path("load").path("eta").stringValue()).isEqualTo("PT0S");

        assertThat(midCatchUp.await(60, TimeUnit.SECONDS)).isTrue();
        JsonNode catching = status(id).path("progress");
        assertThat(catching.path("phase").stringValue()).isEqualTo("CATCHING_UP");
        assertThat(catching.path("unit").stringValue()).isEqualTo("events");
        assertThat(catching.path("done").asLong()).isEqualTo(5);
        assertThat(catching.path("total").asLong()).isEqualTo(20);
        assertThat(catching.path("head").asLong()).isEqualTo(w + 20);
        double rate = catching.path("ratePerSecond").asDouble();
        assertThat(rate).isPositive();
        Duration phaseEta = Duration.parse(catching.path("phaseEta").stringValue());
        assertThat(phaseEta).as("15 events left at %s/s", rate)
                .isEqualTo(Duration.ofSeconds((long) Math.ceil(15 / rate)));
        assertThat(Duration.parse(catching.path("eta").stringValue())).isGreaterThanOrEqualTo(phaseEta);
        assertThat(catching.path("load").path("done").asLong()).isEqualTo(expectedRows);
        assertThat(meters.get("product.rebuild.progress.events.per.second").gauge().value()).isPositive();
        assertThat(meters.get("product.rebuild.progress.eta").gauge().value()).isFinite();
        resume.countDown();

        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> service.find(id).orElseThrow().phase()
                .isFinal());
        Rebuild done = service.find(id).orElseThrow();
        assertThat(done.phase()).isEqualTo(RebuildPhase.DONE);
        JsonNode end = status(id).path("progress");
        assertThat(end.path("phase").stringValue()).isEqualTo("DONE");
        assertThat(end.path("eta").stringValue()).isEqualTo("PT0S");
        assertThat(end.path("load").path("done").asLong()).isEqualTo(done.loadedRows()).isEqualTo(expectedRows);
        assertThat(end.path("catchUp").path("done").asLong()).isEqualTo(20);
        assertThat(end.path("catchUp").path("total").asLong()).isEqualTo(20);
        assertThat(meters.get("product.rebuild.progress.events.per.second").gauge().value()).isZero();
        assertThat(meters.get("product.rebuild.progress.eta").gauge().value()).isNaN();
    }

    private JsonNode status(UUID id) {
        return client("op").get().uri("/v1/rebuilds/{id}", id).retrieve().body(JsonNode.class);
    }
}
