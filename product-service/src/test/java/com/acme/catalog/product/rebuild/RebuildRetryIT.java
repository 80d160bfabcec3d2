package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;

import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ExportWriter;
import com.acme.catalog.product.support.ProductIT;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;
import org.springframework.web.client.ResourceAccessException;
import tools.jackson.databind.JsonNode;

/**
 * A rebuild retries failures that say nothing about the data for its time budget, not a number of attempts, and
 * ends FAILED at once on a failure about the data (issue 30 item 2). {@link RebuildService} runs for real against the
 * product's database and the export step ({@link AwaitExportStep}) against a mocked resolver client; the other steps
 * are mocks each test makes fail as it needs (backoff of 10–40 ms here). Every {@code error} and retry reason is
 * {@code CODE: sentence}, never an exception's class name.
 */
@TestPropertySource(properties = {"product.rebuild.retry-initial-delay=PT0.01S",
        "product.rebuild.retry-max-delay=PT0.04S", "product.rebuild.retry-budget=PT2M"})
class RebuildRetryIT extends ProductIT {

    @MockitoBean
    LeaseStep lease;
    @MockitoBean
    LoadShadowStep load;
    @MockitoBean
    CatchUpStep catchUp;
    @MockitoBean
    CutoverStep cutover;
    @MockitoBean
    RetireStep retire;
    @MockitoBean
    ResolverClient resolver;
    @MockitoSpyBean
    RebuildLedger ledger;
    @Autowired
    RebuildService service;
    @Autowired
    ObjectStore store;

    /** What the lease step does on each call, by catalog: the call number (from 1) to a failure, or null. */
    private final Map<String, Function<Integer, RuntimeException>> leaseFailures = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> leaseCalls = new ConcurrentHashMap<>();
    /** Export ids the resolver hands out, by catalog, in order; then READY ones. */
    private final Map<String, List<String>> exportsFirst = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> exportRequests = new ConcurrentHashMap<>();
    private final Map<String, ExportView> exports = new ConcurrentHashMap<>();

    private UUID startWith(String catalog) throws Exception {
        StreamId s = new StreamId("acme", catalog);
        List<ChainWriter.Event> chain = new ChainWriter(s, 1, new Random(7))
                .appendAll(new CatalogHistory(new Random(8)).random(3));
        String key = ExportWriter.write(store, s, chain, chain.size(), "retry-" + catalog + "-" + UUID.randomUUID());
        exports.put("ready-" + catalog, view("ready-" + catalog, ExportStatus.READY, key, null, null));
        doAnswer(inv -> {
            Started a = inv.getArgument(0);
            String c = a.stream().catalog();
            int call = leaseCalls.computeIfAbsent(c, k -> new AtomicInteger()).incrementAndGet();
            RuntimeException failure = leaseFailures.getOrDefault(c, n -> null).apply(call);
            if (failure != null) {
                throw failure;
            }
            return new Pinned(a, 1, UUID.randomUUID().toString(), mock(LeaseKeeper.class));
        }).when(lease).pinRetention(any());
        doAnswer(inv -> {
            String c = inv.<StreamId>getArgument(0).catalog();
            int n = exportRequests.computeIfAbsent(c, k -> new AtomicInteger()).incrementAndGet();
            List<String> first = exportsFirst.getOrDefault(c, List.of());
            return n <= first.size() ? first.get(n - 1) : "ready-" + c;
        }).when(resolver).requestExport(any(), anyString());
        doAnswer(inv -> exports.get(inv.<String>getArgument(0))).when(resolver).exportStatus(anyString());
        return service.start(s);
    }

    /** The mocked steps pass their results on as the real ones do, unless a test makes one fail. */
    @BeforeEach
    void stepsPassTheirResultsOn() throws Exception {
        doAnswer(inv -> new LoadedShadow(inv.<ReadyExport>getArgument(0).lease().orElseThrow(), 0, 0, 0))
                .when(load).loadShadow(any(), any());
        doAnswer(inv -> new CaughtUp(inv.getArgument(0), 0, System.nanoTime())).when(catchUp).catchUp(any());
        doAnswer(inv -> new CutOver(inv.getArgument(0), 0, Optional.empty())).when(cutover).cutover(any());
    }

    private static ExportView view(String id, ExportStatus status, String manifestKey, String error,
            Boolean permanent) {
        return new ExportView(UUID.nameUUIDFromBytes(id.getBytes()), status, "acme", "x", 1, null, null, null,
                manifestKey, error, null, null, Instant.now(), null, permanent);
    }

    private Rebuild awaitEnd(UUID id) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.find(id).orElseThrow().phase()
                .isFinal());
        return service.find(id).orElseThrow();
    }

    private JsonNode status(UUID id) {
        return client("op").get().uri("/v1/rebuilds/{id}", id).retrieve().body(JsonNode.class);
    }

    private static void assertNoClassName(String text) {
        assertThat(text).doesNotContain("Exception").doesNotContain("java.").matches("[A-Z][A-Z0-9_]+: .+");
    }

    @Test
    void moreTransientFailuresThanTheOldMaxAttemptsWithinTheBudgetEndDone() throws Exception {
        // seven failed attempts of every passing kind: the database cut, the resolver answering 503, unreachable
        leaseFailures.put("flaky", n -> switch (n) {
            case 1, 4, 7 -> new DataAccessResourceFailureException("terminating connection due to administrator "
                    + "command");
            case 2, 5 -> new ResolverClient.UnavailableException("lease answered 503: {\"code\":\"MAINTENANCE\"}");
            case 3, 6 -> new ResourceAccessException("I/O error on POST request for \"http://127.0.0.1:1/v1\": "
                    + "java.net.ConnectException: Connection refused", new ConnectException("Connection refused"));
            default -> null;
        });
        UUID id = startWith("flaky");

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).as("%s", r).isEqualTo(RebuildPhase.DONE);
        assertThat(r.attempt()).isEqualTo(8);
        assertNoClassName(r.error());
        JsonNode view = status(id);
        assertThat(view.path("waitingToRetry").booleanValue()).isFalse();
        assertThat(view.has("nextRetryAt")).isFalse();
        assertThat(view.path("retryCode").stringValue()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(view.path("retryingSince").isString()).isTrue();
    }

    @Test
    void aBudgetUsedUpEndsFailedWithItsCode() throws Exception {
        StreamId s = new StreamId("acme", "exhausted");
        leaseFailures.put("exhausted", n -> {
            if (n == 3) {
                // the third failure comes after the budget (PT2M) has passed since the first retried one
                jdbc.sql("UPDATE rebuild SET retry_since = now() - interval '3 minutes' WHERE catalog = 'exhausted'")
                        .update();
            }
            return new ResolverClient.UnavailableException("lease answered 502: bad gateway");
        });
        UUID id = startWith(s.catalog());

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(r.attempt()).isEqualTo(3);
        assertThat(r.error()).startsWith("RETRY_BUDGET_EXHAUSTED: gave up after 3 attempt(s), retried for PT3M")
                .endsWith("the last failure was RESOLVER_UNAVAILABLE: the resolver could not serve the lease "
                        + "answered 502: bad gateway");
        assertNoClassName(r.error());
        JsonNode view = status(id);
        assertThat(view.path("errorCode").stringValue()).isEqualTo("RETRY_BUDGET_EXHAUSTED");
        assertThat(view.path("waitingToRetry").booleanValue()).isFalse();
    }

    @Test
    void aFailureAboutTheDataEndsFailedAtOnce() throws Exception {
        StreamId s = new StreamId("acme", "corrupt");
        doThrow(new CorruptExportException("sha256 of items.csv.gz is not the manifest's")).when(catchUp)
                .catchUp(org.mockito.ArgumentMatchers.argThat(a -> a != null && a.started().stream().equals(s)));
        UUID id = startWith(s.catalog());

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(r.attempt()).as("no retry").isEqualTo(1);
        assertThat(leaseCalls.get("corrupt").get()).isEqualTo(1);
        assertThat(r.error()).isEqualTo("CORRUPT_EXPORT: the export is not what its manifest says (sha256 of "
                + "items.csv.gz is not the manifest's)");
        assertThat(status(id).path("errorCode").stringValue()).isEqualTo("CORRUPT_EXPORT");

        leaseFailures.put("refused", n -> new ResolverClient.RefusedException("lease answered 403: {}", 403));
        Rebuild refused = awaitEnd(startWith("refused"));
        assertThat(refused.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(refused.attempt()).isEqualTo(1);
        assertThat(refused.error()).startsWith("RESOLVER_REFUSED: ");

        doThrow(new ApiException(ProblemCode.CHAIN_BROKEN, "position 2 does not chain")).when(catchUp)
                .catchUp(org.mockito.ArgumentMatchers.argThat(a -> a != null
                        && a.started().stream().catalog().equals("chain")));
        Rebuild chain = awaitEnd(startWith("chain"));
        assertThat(chain.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(chain.attempt()).isEqualTo(1);
        assertThat(chain.error()).isEqualTo("CHAIN_BROKEN: position 2 does not chain");
    }

    @Test
    void anExportFailedNotPermanentlyIsAnsweredWithANewExport() throws Exception {
        exportsFirst.put("export-failed", List.of("failed-1"));
        exports.put("failed-1", view("failed-1", ExportStatus.FAILED, null, "the export failed; see the resolver's "
                + "log for export failed-1", false));
        UUID id = startWith("export-failed");

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).as("%s", r).isEqualTo(RebuildPhase.DONE);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(exportRequests.get("export-failed").get()).as("a new export").isEqualTo(2);
        assertThat(r.error()).startsWith("EXPORT_FAILED: export failed-1 is FAILED: the export failed");
    }

    @Test
    void anExportFailedPermanentlyEndsFailedAtOnce() throws Exception {
        exportsFirst.put("export-permanent", List.of("failed-2"));
        exports.put("failed-2", view("failed-2", ExportStatus.FAILED, null, "the export found the stream's stored "
                + "data damaged", true));
        UUID id = startWith("export-permanent");

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(exportRequests.get("export-permanent").get()).isEqualTo(1);
        assertThat(r.error()).startsWith("EXPORT_FAILED_PERMANENTLY: export failed-2 is FAILED");
    }

    @Test
    void theStatusSaysWhyItWaitsAndWhenItRetries() throws Exception {
        leaseFailures.put("waiting", n -> n == 1 ? new DataAccessResourceFailureException("connection to "
                + "127.0.0.1:5432 refused") : null);
        CountDownLatch recorded = new CountDownLatch(1);
        CountDownLatch looked = new CountDownLatch(1);
        doAnswer(inv -> {
            inv.callRealMethod();
            if (inv.<StreamId>getArgument(1).catalog().equals("waiting")) {
                recorded.countDown();
                looked.await(30, TimeUnit.SECONDS); // holds the rebuild in its wait while the test reads its status
            }
            return null;
        }).when(ledger).restarted(any(), any(), any(), any(), any());
        UUID id = startWith("waiting");

        assertThat(recorded.await(30, TimeUnit.SECONDS)).isTrue();
        JsonNode view;
        try {
            view = status(id);
        } finally {
            looked.countDown();
        }
        assertThat(view.path("phase").stringValue()).isEqualTo("LEASING");
        assertThat(view.path("waitingToRetry").booleanValue()).as("%s", view).isTrue();
        assertThat(view.path("attempt").intValue()).as("the attempt about to run").isEqualTo(2);
        assertThat(view.path("retryCode").stringValue()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(view.path("retryReason").stringValue()).isEqualTo("DATABASE_UNAVAILABLE: the product's database "
                + "connection failed (connection to 127.0.0.1:5432 refused)");
        assertThat(view.path("error").stringValue()).isEqualTo(view.path("retryReason").stringValue());
        Instant next = Instant.parse(view.path("nextRetryAt").stringValue());
        Instant since = Instant.parse(view.path("retryingSince").stringValue());
        assertThat(next).isAfterOrEqualTo(since);
        assertThat(Instant.parse(view.path("retryBudgetEndsAt").stringValue()))
                .isEqualTo(since.plus(Duration.ofMinutes(2)));

        Rebuild r = awaitEnd(id);
        assertThat(r.phase()).isEqualTo(RebuildPhase.DONE);
        assertThat(status(id).path("waitingToRetry").booleanValue()).isFalse();
    }
}
