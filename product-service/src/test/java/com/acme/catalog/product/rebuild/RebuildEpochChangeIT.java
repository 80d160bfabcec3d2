package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ExportWriter;
import com.acme.catalog.product.support.ProductIT;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/**
 * A rebuild that meets an epoch change mid-way (the resolver's 409 {@code EPOCH_MISMATCH} on its consumer registration
 * after the cutover, or on its export request) restarts at once at the new epoch and ends DONE there, never FAILED
 * for it. Every step runs for real against the product's database; the resolver is a mocked {@link ResolverClient}
 * (as in {@link RebuildRetryIT}) that serves one export per epoch and empty catch-up pages, and rotates the stream to
 * epoch 2 when it first answers 409. The retry budget is zero, so any restart charged to it would end the rebuild
 * FAILED: the epoch restart is not charged, while a second 409 at the same epoch is weighed like any other signal.
 */
@TestPropertySource(properties = {"product.rebuild.retry-budget=PT0S", "product.rebuild.retry-initial-delay=PT0.01S",
        "product.rebuild.retry-max-delay=PT0.01S"})
class RebuildEpochChangeIT extends ProductIT {

    @MockitoBean
    ResolverClient resolver;
    @Autowired
    RebuildService service;
    @Autowired
    ObjectStore store;

    private final AtomicLong epoch = new AtomicLong(1);
    private final Map<String, Long> leaseEpochs = new ConcurrentHashMap<>();
    /** By epoch: the export's manifest key and the chain digest at its cursor W. */
    private final Map<Long, String> manifests = new ConcurrentHashMap<>();
    private final Map<Long, String> digestsAtW = new ConcurrentHashMap<>();
    private final AtomicInteger exportRequests = new AtomicInteger();
    private final AtomicInteger registrations = new AtomicInteger();

    private static ResolverClient.RefusedException epochMismatch(String call, long asked, long current) {
        return new ResolverClient.RefusedException(call + " answered 409: {\"code\":\"EPOCH_MISMATCH\",\"detail\":"
                + "\"epoch " + asked + " is not the current epoch " + current + "\"}", 409,
                ProblemCode.EPOCH_MISMATCH);
    }

    /** The resolver of {@code s}: an export per epoch (W = 3), no event after W, leases and reports accepted. */
    private void resolverOf(StreamId s) throws Exception {
        for (long e = 1; e <= 2; e++) {
            List<ChainWriter.Event> chain = new ChainWriter(s, e, new Random(e))
                    .appendAll(new CatalogHistory(new Random(10 + e)).random(3));
            manifests.put(e, ExportWriter.write(store, s, chain, chain.size(), "epoch-change-" + s.catalog() + "-" + e
                    + "-" + UUID.randomUUID()));
            digestsAtW.put(e, chain.get(chain.size() - 1).chainDigest());
        }
        doAnswer(inv -> epoch.get()).when(resolver).epoch(any());
        doAnswer(inv -> {
            String id = UUID.randomUUID().toString();
            leaseEpochs.put(id, inv.<Long>getArgument(1));
            return id;
        }).when(resolver).createLease(any(), anyLong(), anyLong(), anyString());
        doAnswer(inv -> "export-" + leaseEpochs.get(inv.<String>getArgument(1))).when(resolver)
                .requestExport(any(), anyString());
        doAnswer(inv -> {
            long e = Long.parseLong(inv.<String>getArgument(0).substring("export-".length()));
            return new ExportView(UUID.randomUUID(), ExportStatus.READY, s.tenant(), s.catalog(), e, null, null, null,
                    manifests.get(e), null, null, null, Instant.now(), null, null);
        }).when(resolver).exportStatus(anyString());
        doAnswer(inv -> {
            long after = inv.getArgument(1);
            long e = inv.getArgument(3);
            String d = digestsAtW.get(e);
            return new EventPage(s.tenant(), s.catalog(), e, after, after, d, d, after, List.of());
        }).when(resolver).events(any(), anyLong(), anyString(), anyLong(), anyInt());
    }

    private Rebuild awaitEnd(UUID id) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> service.find(id).orElseThrow().phase()
                .isFinal());
        return service.find(id).orElseThrow();
    }

    private long servingEpoch(StreamId s) {
        return jdbc.sql("""
                SELECT g.epoch FROM serving_generation sg JOIN generation g USING (generation_id)
                 WHERE sg.tenant = ? AND sg.catalog = ?
                """).params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    @Test
    void aConsumerRegistrationAnsweredEpochMismatchRestartsAtTheNewEpoch() throws Exception {
        StreamId s = new StreamId("acme", "epoch-registration");
        resolverOf(s);
        doAnswer(inv -> {
            long asked = inv.getArgument(1);
            registrations.incrementAndGet();
            if (asked == 1) {
                // the stream was rotated while the epoch-1 attempt cut over
                epoch.set(2);
                throw epochMismatch("consumer registration", asked, 2);
            }
            return null;
        }).when(resolver).registerConsumer(any(), anyLong());

        Rebuild r = awaitEnd(service.start(s));

        assertThat(r.phase()).as("%s", r).isEqualTo(RebuildPhase.DONE);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.error()).startsWith("EPOCH_CHANGED: the resolver answered the consumer registration with 409 "
                + "EPOCH_MISMATCH");
        assertThat(servingEpoch(s)).as("rebuilt at the new epoch").isEqualTo(2);
        assertThat(registrations.get()).isEqualTo(2);
        RebuildRepository.Retry retry = service.retry(r.rebuildId()).orElseThrow();
        assertThat(retry.retryCode()).isEqualTo("EPOCH_CHANGED");
        assertThat(retry.retrySince()).as("the retry budget was not started").isNull();
    }

    @Test
    void anExportRequestAnsweredEpochMismatchRestartsAtTheNewEpoch() throws Exception {
        StreamId s = new StreamId("acme", "epoch-export");
        resolverOf(s);
        doAnswer(inv -> {
            long leaseEpoch = leaseEpochs.get(inv.<String>getArgument(1));
            exportRequests.incrementAndGet();
            if (leaseEpoch == 1) {
                epoch.set(2);
                throw epochMismatch("export", 1, 2);
            }
            return "export-" + leaseEpoch;
        }).when(resolver).requestExport(any(), anyString());

        Rebuild r = awaitEnd(service.start(s));

        assertThat(r.phase()).as("%s", r).isEqualTo(RebuildPhase.DONE);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(exportRequests.get()).isEqualTo(2);
        assertThat(servingEpoch(s)).isEqualTo(2);
        assertThat(service.retry(r.rebuildId()).orElseThrow().retryCode()).isEqualTo("EPOCH_CHANGED");
    }

    @Test
    void aSecondEpochMismatchAtTheSameEpochIsWeighedByTheBudget() throws Exception {
        StreamId s = new StreamId("acme", "epoch-stuck");
        resolverOf(s);
        // a resolver that keeps refusing epoch 1 while reporting it as current: no new epoch to restart at
        doAnswer(inv -> {
            exportRequests.incrementAndGet();
            throw epochMismatch("export", 1, 1);
        }).when(resolver).requestExport(any(), anyString());

        Rebuild r = awaitEnd(service.start(s));

        assertThat(r.phase()).isEqualTo(RebuildPhase.FAILED);
        assertThat(r.attempt()).as("restarted once at once, then charged").isEqualTo(2);
        assertThat(r.error()).startsWith("RETRY_BUDGET_EXHAUSTED: ").contains("the last failure was EPOCH_CHANGED: ");
    }
}
