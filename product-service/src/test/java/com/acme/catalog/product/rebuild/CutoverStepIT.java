package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.testsupport.FreshDatabase;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The cutover's refusals (design step 7), one test each, against the real PostgreSQL: an event parked at or below
 * the target H in the shadow, a serving copy past the resolver's head in the same epoch, a worker lease taken over
 * by another instance, and an epoch changed since the rebuild started (each test fails once its check in
 * {@link CutoverStep} is commented out). Each refusal leaves the swap undone: the old generation still serves and its
 * cursor (the live cursor) has not moved, the shadow is still BUILDING. The first test is the control: the same setup
 * with nothing wrong cuts over, so each refusal is the one difference; a serving copy past the head that is marked
 * diverged is the one exception to its refusal (the rebuild repairs it).
 *
 * <p>The stream's live copy is filled through the inbox as the relay would; the shadow is a BUILDING generation
 * made here, and {@link CutoverStep} fetches its tail from a stub of the resolver's retained-events endpoint.
 */
// its deliveries start the stream without listing it in PRODUCT_STREAMS (StreamAdmissionIT tests that rule)
@org.springframework.context.annotation.Import(ProductIT.AnyStreamOnDelivery.class)
@FreshDatabase
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "security.tokens=op=operator;r=relay;c=consumer", "product.resolver-token=c",
        "product.consumer-id=product-it", "product.recovery.enabled=false",
        "product.recovery.instance-id=cutover-it"})
class CutoverStepIT {

    private static final StubResolver RESOLVER = new StubResolver();

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
    CutoverStep cutover;
    @Autowired
    CatchUpStep catchUp;
    @Autowired
    WorkerLeases leases;

    /** e1: item a rev 1; e2: PUBLIC release of a rev 1; e3: item a rev 2 (depends on rev 1). */
    private static List<ChainWriter.Event> history(StreamId s) {
        CatalogHistory h = new CatalogHistory(new Random(3));
        ChainWriter w = new ChainWriter(s, 1, new Random(4));
        return List.of(w.append(h.upsertItem("a", CatalogHistory.attributes("Trail runner", 120, "red"))),
                w.append(h.putRelease("pub", "PUBLIC", Map.of("a", 1))),
                w.append(h.upsertItem("a", CatalogHistory.attributes("Trail runner II", 130, "red"))));
    }

    @Test
    void cutsOverWhenNothingRefuses() {
        StreamId s = new StreamId("acme", "cut-ok");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events.subList(0, 2));
        RESOLVER.serve(s, events);
        CaughtUp a = attempt(s, 0, ChainDigest.ZERO);

        CutOver c = cutover.cutover(a);

        assertThat(c.replaced()).contains(old);
        assertThat(servingGeneration(s)).isEqualTo(a.generation());
        assertThat(status(a.generation())).isEqualTo("SERVING");
        assertThat(appliedPosition(a.generation())).isEqualTo(3);
        assertThat(c.cutOver()).isTrue();
        assertThat(c.target()).isEqualTo(3);
    }

    @Test
    void theCatchUpReportsItsEventsAndTheResolversHeadPerPage() throws Exception {
        StreamId s = new StreamId("acme", "catch-up-progress");
        List<ChainWriter.Event> events = history(s);
        RESOLVER.serve(s, events);
        LoadedShadow a = attempt(s, 0, ChainDigest.ZERO).shadow();
        RebuildProgress progress = a.started().progress();
        progress.phase(RebuildPhase.CATCHING_UP);

        CaughtUp caughtUp = catchUp.catchUp(a);

        assertThat(caughtUp.events()).isEqualTo(3);
        assertThat(caughtUp.shadow()).isEqualTo(a);
        com.acme.catalog.contracts.rebuild.RebuildView.Count count = progress.catchUp();
        assertThat(count.done()).isEqualTo(3);
        assertThat(count.total()).isEqualTo(3);
        assertThat(count.eta()).isEqualTo("PT0S");
        assertThat(progress.head()).isEqualTo(3);
    }

    @Test
    void refusesWhileAnEventAtOrBelowTheTargetIsParked() {
        StreamId s = new StreamId("acme", "cut-parked");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events.subList(0, 2));
        RESOLVER.serve(s, events);
        // a shadow whose load claimed position 1 without item a's first revision (a load that lost a row): the
        // tail's release and item a rev 2 both wait for it, parked at positions 2 and 3, at or below H = 3
        CaughtUp a = attempt(s, 1, events.get(0).chainDigest());

        assertThatThrownBy(() -> cutover.cutover(a)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("2 event(s) at or below the target 3 are parked");

        assertNothingSwapped(s, old, 2, a);
    }

    @Test
    void refusesWhenTheServingCopyIsPastTheResolversHead() {
        StreamId s = new StreamId("acme", "cut-ahead");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events);
        // the resolver now ends at position 2 of the same epoch (restored, no new epoch issued): the product
        // applied a position the resolver no longer has, a rollback signal, not a reason to serve less
        RESOLVER.serve(s, events.subList(0, 2));
        CaughtUp a = attempt(s, 0, ChainDigest.ZERO);

        assertThatThrownBy(() -> cutover.cutover(a)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the serving generation is at 3, past the resolver's head 2");

        assertNothingSwapped(s, old, 3, a);
    }

    @Test
    void replacesAServingCopyPastTheHeadOnceItIsMarkedDiverged() {
        StreamId s = new StreamId("acme", "cut-diverged");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events);
        RESOLVER.serve(s, events.subList(0, 2));
        // the recovery worker found the serving copy's chain is not the resolver's (e.g. a forged event at 3): the
        // rebuild is the repair, so the copy's being past the head is no rollback signal any more
        jdbc.sql("UPDATE generation SET diverged_at = now(), divergence = 'forged' WHERE generation_id = ?")
                .params(old).update();
        CaughtUp a = attempt(s, 0, ChainDigest.ZERO);

        CutOver c = cutover.cutover(a);

        assertThat(c.replaced()).contains(old);
        assertThat(servingGeneration(s)).isEqualTo(a.generation());
        assertThat(c.target()).isEqualTo(2);
    }

    @Test
    void refusesWhenTheWorkerLeaseNoLongerHolds() {
        StreamId s = new StreamId("acme", "cut-fenced");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events.subList(0, 2));
        RESOLVER.serve(s, events);
        CaughtUp a = attempt(s, 0, ChainDigest.ZERO);
        // another instance took the stream's worker lease over (after this one's expired): a new owner, a new fence
        jdbc.sql("""
                UPDATE recovery_lease SET owner = 'other-node', fence = fence + 1, acquired_at = clock_timestamp(),
                                          expires_at = clock_timestamp() + interval '1 minute'
                 WHERE tenant = ? AND catalog = ?
                """).params(s.tenant(), s.catalog()).update();

        assertThatThrownBy(() -> cutover.cutover(a)).isInstanceOf(FencedOutException.class)
                .hasMessageContaining("now held by other-node with fence " + (a.started().fence().fence() + 1));

        assertNothingSwapped(s, old, 2, a);
    }

    @Test
    void refusesWhenTheEpochChangedSinceTheRebuildStarted() {
        StreamId s = new StreamId("acme", "cut-epoch");
        List<ChainWriter.Event> events = history(s);
        long old = serveLive(s, events.subList(0, 2));
        RESOLVER.serve(s, events);
        CaughtUp a = attempt(s, 0, ChainDigest.ZERO);
        // the product learnt epoch 2 (a restore was fenced) while this epoch-1 rebuild ran
        jdbc.sql("""
                INSERT INTO stream_epoch (tenant, catalog, epoch) VALUES (?, ?, 2)
                ON CONFLICT (tenant, catalog) DO UPDATE SET epoch = 2
                """).params(s.tenant(), s.catalog()).update();

        assertThatThrownBy(() -> cutover.cutover(a)).isInstanceOfSatisfying(RestartRequired.class,
                r -> assertThat(r.reason()).isEqualTo(RestartRequired.Reason.EPOCH_CHANGED_BEFORE_CUTOVER))
                .hasMessage("EPOCH_CHANGED_BEFORE_CUTOVER: the current epoch is 2, this rebuild is of epoch 1");

        // (public reads of the epoch-1 generation are now stale by design, so only the pointer and cursor are checked)
        assertPointerAndCursorUnchanged(s, old, 2, a);
    }

    /** The old generation still serves at its position, the shadow is not SERVING. */
    private void assertNothingSwapped(StreamId s, long old, long oldPosition, CaughtUp a) {
        assertPointerAndCursorUnchanged(s, old, oldPosition, a);
        assertThat(RestClient.create("http://localhost:" + port).get()
                .uri("/v1/catalog/{t}/{c}/items/a", s.tenant(), s.catalog()).retrieve().body(String.class))
                .as("public readers still get the old generation's item").contains("Trail runner");
    }

    private void assertPointerAndCursorUnchanged(StreamId s, long old, long oldPosition, CaughtUp a) {
        assertThat(servingGeneration(s)).as("serving pointer").isEqualTo(old);
        assertThat(status(old)).isEqualTo("SERVING");
        assertThat(appliedPosition(old)).as("live cursor").isEqualTo(oldPosition);
        assertThat(status(a.generation())).isEqualTo("BUILDING");
    }

    /** Delivers the events through the inbox as the relay does; @return the serving generation they made. */
    private long serveLive(StreamId s, List<ChainWriter.Event> events) {
        String body = "{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                + "]}";
        int status = RestClient.create("http://localhost:" + port).post().uri("/v1/inbox/events")
                .header("Authorization", "Bearer r").contentType(MediaType.APPLICATION_JSON).body(body).retrieve()
                .toBodilessEntity().getStatusCode().value();
        assertThat(status).isEqualTo(200);
        long g = servingGeneration(s);
        assertThat(appliedPosition(g)).isEqualTo(events.size());
        return g;
    }

    /** A BUILDING generation of epoch 1 whose cursor stands at {@code position} with {@code digest}, empty. */
    private long shadowAt(StreamId s, long position, String digest) {
        long g = jdbc.sql("""
                INSERT INTO generation (tenant, catalog, epoch, status) VALUES (?, ?, 1, 'BUILDING')
                RETURNING generation_id
                """).params(s.tenant(), s.catalog()).query(Long.class).single();
        jdbc.sql("SELECT create_generation_partitions(?)").params(g).query().singleRow();
        jdbc.sql("""
                UPDATE generation SET chain_position = ?, chain_digest = ?, applied_position = ?,
                                      highest_seen_position = ?
                 WHERE generation_id = ?
                """).params(position, digest, position, position, g).update();
        return g;
    }

    /**
     * An attempt of epoch 1 that holds the stream's worker lease and has reached its cutover, its shadow caught up
     * to {@code position}. The lease is taken first: taking it over retires the stream's BUILDING generations.
     */
    private CaughtUp attempt(StreamId s, long position, String digest) {
        Started started = Started.of(UUID.randomUUID(), leases.hold(s).orElseThrow(),
                com.acme.catalog.product.projection.ProjectionVersion.CURRENT, false);
        Pinned pinned = new Pinned(started, 1, UUID.randomUUID().toString(),
                org.mockito.Mockito.mock(LeaseKeeper.class));
        LoadedShadow shadow = new LoadedShadow(pinned, shadowAt(s, position, digest), 0, position);
        return new CaughtUp(shadow, 0, System.nanoTime());
    }

    private long servingGeneration(StreamId s) {
        return jdbc.sql("SELECT generation_id FROM serving_generation WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    private String status(long g) {
        return jdbc.sql("SELECT status FROM generation WHERE generation_id = ?").params(g).query(String.class)
                .single();
    }

    private long appliedPosition(long g) {
        return jdbc.sql("SELECT applied_position FROM generation WHERE generation_id = ?").params(g)
                .query(Long.class).single();
    }

    /**
     * The resolver as the cutover sees it: pages of retained events cut from a {@link ChainWriter} history (head =
     * the history's length), progress reports answered 200, the epoch API at epoch 1; anything else 503.
     */
    static final class StubResolver implements AutoCloseable {

        private final HttpServer server;
        private final Map<String, List<ChainWriter.Event>> histories = new ConcurrentHashMap<>();

        StubResolver() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.createContext("/", this::handle);
            server.setExecutor(Executors.newFixedThreadPool(2));
            server.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void serve(StreamId s, List<ChainWriter.Event> history) {
            histories.put(s.catalog(), List.copyOf(history));
        }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                String method = ex.getRequestMethod();
                String path = ex.getRequestURI().getPath();
                Map<String, String> q = query(ex.getRequestURI().getRawQuery());
                if (method.equals("GET") && path.equals("/v1/exports/events")) {
                    page(ex, q.get("catalog"), Long.parseLong(q.get("after")), Integer.parseInt(q.get("limit")));
                } else if (method.equals("PUT") && path.endsWith("/progress")) {
                    answer(ex, 200, "{\"durablePosition\":0}");
                } else if (method.equals("GET") && path.startsWith("/v1/epochs/")) {
                    String at = "2026-12-02T04:50:07Z";
                    answer(ex, 200, "{\"epoch\":1,\"issuedAt\":\"" + at + "\",\"highWaterMark\":0,\"history\":"
                            + "[{\"epoch\":1,\"issuedAt\":\"" + at + "\",\"reason\":\"test\",\"issuer\":\"stub\"}]}");
                } else {
                    answer(ex, 503, "{\"code\":\"MAINTENANCE\"}");
                }
            }
        }

        private void page(HttpExchange ex, String catalog, long after, int limit) throws IOException {
            List<ChainWriter.Event> all = histories.getOrDefault(catalog, List.of());
            long through = Math.min(all.size(), after + limit);
            String digestAfter = after == 0 ? ChainDigest.ZERO : all.get((int) after - 1).chainDigest();
            String digestThrough = through == after ? digestAfter : all.get((int) through - 1).chainDigest();
            StringBuilder events = new StringBuilder();
            for (long p = after + 1; p <= through; p++) {
                events.append(events.length() == 0 ? "" : ",").append(all.get((int) p - 1).delivered());
            }
            answer(ex, 200, "{\"tenant\":\"acme\",\"catalog\":\"" + catalog + "\",\"epoch\":1,\"after\":" + after
                    + ",\"through\":" + through + ",\"chainDigestAfter\":\"" + digestAfter
                    + "\",\"chainDigestThrough\":\"" + digestThrough + "\",\"head\":" + all.size()
                    + ",\"events\":[" + events + "]}");
        }

        private static void answer(HttpExchange ex, int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, bytes.length);
            ex.getResponseBody().write(bytes);
        }

        private static Map<String, String> query(String raw) {
            Map<String, String> out = new HashMap<>();
            if (raw != null) {
                for (String kv : raw.split("&")) {
                    int eq = kv.indexOf('=');
                    out.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
            return out;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
