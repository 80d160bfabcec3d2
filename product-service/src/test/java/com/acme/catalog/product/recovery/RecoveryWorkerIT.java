package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.TestClients;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * The recovery worker of a running product against a fake resolver: a live gap is filled from the catch-up
 * endpoint, a periodic cycle leaves the relay one interval before it catches up, a chain break in a delivery makes the worker catch up, resolver failures back off and show RETRYING
 * while readiness stays UP, a page that does not chain is BLOCKED, a 410 or a new epoch starts a rebuild, and a
 * catch-up page written under a fence another instance replaced is refused and leaves nothing behind.
 */
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-it", "product.recovery.instance-id=it-node",
        // the stream sweep's scheduled runs are out of the way: the tests drive cycles, and a sweep's periodic trigger
        // racing a test's own cycle calls made them flaky
        "product.epochs.poll-interval=PT1H", "product.rollbacks.poll=PT1H",
        "product.recovery.interval=PT10M", "product.recovery.gap-grace=PT0.1S",
        "product.recovery.page-limit=7", "product.recovery.max-pages-per-cycle=2",
        "product.progress.initial-backoff=PT0.02S", "product.progress.max-backoff=PT0.2S",
        // the fake serves no export: a rebuild the worker starts fails at once instead of retrying for 30 minutes
        "product.rebuild.retry-budget=PT0S"})
class RecoveryWorkerIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();

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
    @Autowired
    ServingCatchUp catchUp;
    @Autowired
    GenerationRepository generations;

    private RestClient client(String token) {
        return TestClients.of(port, token);
    }

    private int deliver(List<ChainWriter.Event> events) {
        return client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}")
                .retrieve().toEntity(JsonNode.class).getStatusCode().value();
    }

    private JsonNode completeness(String catalog) {
        return client("op").get().uri("/v1/projection-completeness?tenant=acme&catalog=" + catalog).retrieve()
                .body(JsonNode.class);
    }

    private static List<ChainWriter.Event> history(String catalog, int n, long seed) {
        CatalogHistory h = new CatalogHistory(new Random(seed));
        return new ChainWriter(new StreamId("acme", catalog), 1, new Random(seed + 1)).appendAll(h.random(n));
    }

    private long rebuildsOf(String catalog) {
        return jdbc.sql("SELECT count(*) FROM rebuild WHERE catalog = ?").params(catalog).query(Long.class).single();
    }

    /**
     * A periodic cycle leaves a behind stream to the relay for an interval; a gap signalled at the same time must not
     * be coalesced into it and lost (RecoveryWorkerIT failed in CI when the sweep's first pass asked for a periodic
     * cycle 120 ms after the inbox had signalled the gap above: the sooner periodic trigger replaced it).
     */
    @Test
    void aGapTriggerIsNotLostToASoonerPeriodicOne() {
        List<ChainWriter.Event> all = history("coalesced", 12, 23);
        RESOLVER.stream("coalesced").events = all;
        assertThat(deliver(all.subList(0, 4))).isEqualTo(200);
        StreamId s = new StreamId("acme", "coalesced");
        worker.trigger(s, RecoveryWorker.Trigger.GAP); // due after the gap grace
        worker.trigger(s, RecoveryWorker.Trigger.PERIODIC); // due now: it runs, for the gap's reason
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(completeness("coalesced").get("verifiedThrough").longValue()).isEqualTo(12));
    }

    /**
     * A trigger pending when the worker stops dies with its executor; after a restart it must not stand for the
     * stream and swallow the next trigger (the stale entry's delay is never shorter than a real one's).
     */
    @Test
    void aTriggerPendingAtStopDoesNotSwallowTheNextOneAfterARestart() {
        List<ChainWriter.Event> all = history("restarted", 12, 27);
        RESOLVER.stream("restarted").events = all;
        assertThat(deliver(all.subList(0, 4))).isEqualTo(200);
        StreamId s = new StreamId("acme", "restarted");
        worker.trigger(s, RecoveryWorker.Trigger.GAP); // due after the gap grace: it never runs
        worker.stop();
        worker.start();
        worker.trigger(s, RecoveryWorker.Trigger.GAP);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(completeness("restarted").get("verifiedThrough").longValue()).isEqualTo(12));
    }

    @Test
    void aLiveGapIsFilledFromTheCatchUpEndpoint() {
        List<ChainWriter.Event> all = history("gap", 40, 11);
        RESOLVER.stream("gap").events = all;
        assertThat(deliver(all.subList(0, 10))).isEqualTo(200);
        assertThat(deliver(all.subList(30, 40))).as("held above the gap").isEqualTo(200);

        // the relay never sends 11..30: only the worker, signalled by the live consumer, can fill the gap
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode c = completeness("gap");
            assertThat(c.get("verifiedThrough").longValue()).as("%s", c).isEqualTo(40);
            assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("CURRENT");
        });
        // 30 events after position 10 in pages of 7, two pages per cycle: bounded pages and cycles
        assertThat(RESOLVER.stream("gap").pagesServed.get()).isGreaterThanOrEqualTo(3);
        JsonNode c = completeness("gap");
        assertThat(c.get("worker").get("alive").booleanValue()).isTrue();
        assertThat(c.get("observedSourceBoundary").longValue()).isEqualTo(40);
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        // per instance (docs/metrics.md): at least this stream's lease and cycles
        assertThat(metrics).containsPattern("product_recovery_lease_held\\{application=\"product\"\\} [1-9]")
                .containsPattern("product_recovery_cycles_total\\{application=\"product\"\\} [1-9]")
                .doesNotContainPattern("product_recovery_\\w+\\{[^}]*catalog=");
    }

    @Test
    void aPeriodicCycleLeavesTheRelayOneIntervalBeforeCatchingUp() {
        StreamId s = new StreamId("acme", "lagging");
        List<ChainWriter.Event> all = history("lagging", 9, 81);
        RESOLVER.stream("lagging").events = all;
        assertThat(deliver(all.subList(0, 3))).isEqualTo(200);

        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.IDLE);
        assertThat(completeness("lagging").get("verifiedThrough").longValue()).isEqualTo(3);
        assertThat(completeness("lagging").get("observedSourceBoundary").longValue()).isEqualTo(9);

        // still not delivered one interval later: the worker catches up
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.CAUGHT_UP);
        assertThat(completeness("lagging").get("verifiedThrough").longValue()).isEqualTo(9);
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.CURRENT);
    }

    @Test
    void aChainBreakInADeliveryMakesTheWorkerCatchUp() {
        List<ChainWriter.Event> all = history("broken", 12, 21);
        RESOLVER.stream("broken").events = all;
        assertThat(deliver(all.subList(0, 5))).isEqualTo(200);
        int status = client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + all.get(5).deliveredWithBadDigest() + "]}").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value();
        assertThat(status).isEqualTo(422);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(completeness("broken").get("verifiedThrough").longValue()).isEqualTo(12));
    }

    @Test
    void resolverFailuresBackOffAsRetryingWhileReadinessStaysUp() {
        List<ChainWriter.Event> all = history("down", 8, 31);
        FakeCatchUpResolver.Stream s = RESOLVER.stream("down");
        s.events = all;
        s.statusAnswer = 503;
        assertThat(deliver(all.subList(0, 3))).isEqualTo(200);
        worker.trigger(new StreamId("acme", "down"), RecoveryWorker.Trigger.STARTUP);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode c = completeness("down");
            assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("RETRYING");
            assertThat(c.get("reason").stringValue()).contains("RECOVERY_FAILED: RESOLVER_UNAVAILABLE: ").contains("503")
                    .as("a code and a sentence, no Java class name").doesNotContain("Exception")
                    .containsPattern("\\(([3-9]|\\d\\d+) failure\\(s\\) in a row, next attempt at ");
        });
        assertThat(client(null).get().uri("/actuator/health/readiness").retrieve().toEntity(JsonNode.class)
                .getStatusCode().value()).isEqualTo(200);
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).containsPattern("product_recovery_failures_total\\{application=\"product\"\\} ([3-9]|\\d\\d+)");

        s.statusAnswer = 200;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode c = completeness("down");
            assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("CURRENT");
            assertThat(c.get("verifiedThrough").longValue()).isEqualTo(8);
        });
    }

    @Test
    void aPageThatDoesNotChainIsBlocked() {
        List<ChainWriter.Event> all = history("tampered", 6, 41);
        FakeCatchUpResolver.Stream s = RESOLVER.stream("tampered");
        s.events = all;
        s.brokenChain = true;
        assertThat(deliver(all.subList(0, 2))).isEqualTo(200);
        worker.trigger(new StreamId("acme", "tampered"), RecoveryWorker.Trigger.STARTUP);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode c = completeness("tampered");
            assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("BLOCKED");
            assertThat(c.get("reason").stringValue()).startsWith("CHAIN_BROKEN");
        });
        assertThat(completeness("tampered").get("verifiedThrough").longValue()).isEqualTo(2);
    }

    /**
     * Part 6 of issue 16: a well-chained event the resolver never wrote (a forged delivery) passes the inbox's own
     * chain check; the worker's comparison with the resolver's digest finds it, whether the forged position is
     * beyond the resolver's head or replaces one it committed: BLOCKED with the reason, counted, rebuilt, and never
     * CURRENT. Without the comparison the first cycle answers CURRENT.
     */
    @Test
    void aWellChainedForgedDeliveryIsBlockedCountedAndRebuiltNeverCurrent() {
        for (String catalog : List.of("forged-ahead", "forged-instead")) {
            double divergencesBefore = scraped("product_chain_divergences_total{application=\"product\"}");
            StreamId s = new StreamId("acme", catalog);
            CatalogHistory h = new CatalogHistory(new Random(91));
            ChainWriter writer = new ChainWriter(s, 1, new Random(92));
            List<ChainWriter.Event> real = new java.util.ArrayList<>(writer.appendAll(h.random(6)));
            ChainWriter.Event forged = writer.append(h.upsertItem("planted",
                    CatalogHistory.attributes("Planted", 1, "red")));
            if (catalog.equals("forged-instead")) {
                // the resolver committed another event at that position
                ChainWriter twin = new ChainWriter(s, 1, new Random(92));
                CatalogHistory th = new CatalogHistory(new Random(91));
                List<ChainWriter.Event> same = new java.util.ArrayList<>(twin.appendAll(th.random(6)));
                same.add(twin.append(th.upsertItem("genuine", CatalogHistory.attributes("Genuine", 2, "blue"))));
                assertThat(same.subList(0, 6)).isEqualTo(real);
                real = same;
            }
            RESOLVER.stream(catalog).events = real;
            assertThat(deliver(real.subList(0, 6))).isEqualTo(200);
            assertThat(deliver(List.of(forged))).as("well chained: the inbox alone cannot tell").isEqualTo(200);

            assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).isEqualTo(RecoveryWorker.Outcome.REBUILDING);
            JsonNode c = completeness(catalog);
            assertThat(c.get("state").stringValue()).as("%s", c).isEqualTo("BLOCKED");
            assertThat(c.get("reason").stringValue()).as("%s", c).startsWith("CHAIN_DIVERGED: ")
                    .contains(catalog.equals("forged-ahead") ? "never committed" : forged.chainDigest());
            assertThat(rebuildsOf(catalog)).as("a rebuild replaces the generation").isPositive();
            String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
            assertThat(scraped("product_chain_divergences_total{application=\"product\"}") - divergencesBefore)
                    .isEqualTo(1.0);
            // the rebuild fails here (the fake serves no export): the generation stays BLOCKED, not CURRENT
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(jdbc.sql("SELECT phase FROM rebuild WHERE catalog = ? ORDER BY created_at DESC LIMIT 1")
                            .params(catalog).query(String.class).single()).isEqualTo("FAILED"));
            assertThatThrownBy(() -> worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).hasMessageContaining("failed");
            assertThat(completeness(catalog).get("state").stringValue()).isEqualTo("BLOCKED");
            assertThat(worker.cycle(s, RecoveryWorker.Trigger.PERIODIC)).as("rebuilt again, never CURRENT")
                    .isEqualTo(RecoveryWorker.Outcome.REBUILDING);
            assertThat(completeness(catalog).get("state").stringValue()).isEqualTo("BLOCKED");
        }
    }

    @Test
    void a410OrANewEpochStartsARebuild() {
        List<ChainWriter.Event> gone = history("gone", 6, 51);
        RESOLVER.stream("gone").events = gone;
        RESOLVER.stream("gone").gone = true;
        assertThat(deliver(gone.subList(0, 2))).isEqualTo(200);
        List<ChainWriter.Event> restored = history("restored", 4, 61);
        RESOLVER.stream("restored").events = restored;
        RESOLVER.stream("restored").epoch = 2;
        assertThat(deliver(restored.subList(0, 4))).isEqualTo(200);

        worker.trigger(new StreamId("acme", "gone"), RecoveryWorker.Trigger.STARTUP);
        worker.trigger(new StreamId("acme", "restored"), RecoveryWorker.Trigger.STARTUP);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(rebuildsOf("gone")).isPositive();
            assertThat(rebuildsOf("restored")).isPositive();
        });
    }

    /**
     * A worker write of the real catch-up path (one page into the serving generation) under a fence that another
     * instance replaced after expiry: refused, rolled back, nothing written. Without the fence check in the page
     * transaction the page commits.
     */
    @Test
    void aCatchUpPageUnderAReplacedFenceIsRefused() throws Exception {
        StreamId s = new StreamId("acme", "stale");
        List<ChainWriter.Event> all = history("stale", 10, 71);
        assertThat(deliver(all.subList(0, 4))).isEqualTo(200);
        WorkerLeases a = new WorkerLeases(jdbc, new SimpleMeterRegistry(), "node-a", 1);
        WorkerLeases b = new WorkerLeases(jdbc, new SimpleMeterRegistry(), "node-b", 30);
        WorkerFence fa = a.hold(s).orElseThrow();
        GenerationCursor read = generations.serving(s).orElseThrow();
        EventPage page = new EventPage("acme", "stale", 1, 4, 10, all.get(3).chainDigest(), all.get(9).chainDigest(),
                10, all.subList(4, 10).stream().map(ChainWriter.Event::delivered).toList());
        Thread.sleep(1300);
        WorkerFence fb = b.hold(s).orElseThrow();

        assertThatThrownBy(() -> catchUp.applyPage(fa, read, page)).isInstanceOf(FencedOutException.class);
        assertThat(generations.serving(s).orElseThrow()).isEqualTo(read);
        assertThat(jdbc.sql("SELECT count(*) FROM inbox WHERE generation_id = ? AND position > 4")
                .params(read.generationId()).query(Long.class).single()).isZero();

        assertThat(catchUp.applyPage(fb, read, page).appliedPosition()).isEqualTo(10);
    }

    /** The value of the scraped sample exactly {@code sample} (per-instance counters: compare before and after). */
    private double scraped(String sample) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return text.lines().filter(l -> l.startsWith(sample + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).orElse(0.0);
    }
}
