package com.acme.catalog.product.rebuild;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.inbox.ApplyResult;
import com.acme.catalog.product.inbox.DeliveryParser;
import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Runs rebuilds (docs/rebuild.md): lease → export → load a BUILDING generation → catch up from W with the live
 * apply code → cutover under the serving lock → register/advance the consumer → release the lease → retire the old
 * generation. A 410 from the resolver drops the shadow and restarts from a new export (bounded attempts); any other
 * failure drops the shadow, releases the lease and leaves the rebuild FAILED with its error.
 */
@Service
public class RebuildService {

    private static final Logger log = LoggerFactory.getLogger(RebuildService.class);
    private static final String SQL_PARKED_AT_OR_BELOW = """
            SELECT count(*) FROM held_event WHERE generation_id = ? AND state = 'PARKED' AND position <= ?
            """;
    private static final String SQL_POINT = """
            INSERT INTO serving_generation (tenant, catalog, generation_id) VALUES (?, ?, ?)
            ON CONFLICT (tenant, catalog) DO UPDATE SET generation_id = excluded.generation_id, switched_at = now()
            """;
    private static final String SQL_SERVING_STATUS = """
            UPDATE generation SET status = 'SERVING', updated_at = now() WHERE generation_id = ?
            """;

    private final RebuildRepository rebuilds;
    private final ResolverExportClient resolver;
    private final ShadowLoader loader;
    private final GenerationRetirer retirer;
    private final GenerationRepository generations;
    private final EventApplier applier;
    private final DeliveryParser parser;
    private final ObjectStore store;
    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final MeterRegistry meters;
    private final RebuildMetrics throughput;
    private final ExecutorService workers;
    private final Map<StreamId, AtomicInteger> phaseGauges = new ConcurrentHashMap<>();
    private final long leaseTtlSeconds;
    private final int pageLimit;
    private final int maxAttempts;
    private final long pollMillis;

    RebuildService(RebuildRepository rebuilds, ResolverExportClient resolver, ShadowLoader loader,
            GenerationRetirer retirer, GenerationRepository generations, EventApplier applier, DeliveryParser parser,
            ObjectStore store, JdbcClient jdbc, PlatformTransactionManager tm, MeterRegistry meters,
            RebuildMetrics throughput,
            @Value("${product.rebuild.lease-ttl-seconds:120}") long leaseTtlSeconds,
            @Value("${product.rebuild.page-limit:1000}") int pageLimit,
            @Value("${product.rebuild.max-attempts:3}") int maxAttempts,
            @Value("${product.rebuild.poll-ms:200}") long pollMillis,
            @Value("${product.rebuild.workers:2}") int workers) {
        this.rebuilds = rebuilds;
        this.resolver = resolver;
        this.loader = loader;
        this.retirer = retirer;
        this.generations = generations;
        this.applier = applier;
        this.parser = parser;
        this.store = store;
        this.jdbc = jdbc;
        this.tx = new TransactionTemplate(tm);
        this.meters = meters;
        this.throughput = throughput;
        this.leaseTtlSeconds = leaseTtlSeconds;
        this.pageLimit = pageLimit;
        this.maxAttempts = maxAttempts;
        this.pollMillis = pollMillis;
        this.workers = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "rebuild");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts a rebuild of {@code stream}, or answers the one already running. */
    public synchronized UUID start(StreamId stream) {
        Optional<UUID> running = rebuilds.active(stream);
        if (running.isPresent()) {
            return running.get();
        }
        UUID id = UuidV7.next();
        rebuilds.insert(id, stream);
        gauge(stream).set(RebuildPhase.LEASING.ordinal());
        workers.submit(() -> run(id, stream));
        return id;
    }

    public Optional<Rebuild> find(UUID id) {
        return rebuilds.find(id);
    }

    /** @return the rebuild's phase and step durations */
    Optional<RebuildRepository.Timings> timings(UUID id) {
        return rebuilds.timings(id);
    }

    /** @return the stream's most recent rebuild, running or finished */
    public Optional<Rebuild> latest(StreamId stream) {
        return rebuilds.latest(stream);
    }

    /** At start: fails rebuilds a stopped process left running and retires their BUILDING generations. */
    void cleanUpAbandoned() {
        int failed = rebuilds.failAbandoned();
        List<Long> dropped = retirer.retireAbandoned();
        if (failed > 0 || !dropped.isEmpty()) {
            log.warn("failed {} rebuild(s) a stopped process left unfinished; retired BUILDING generation(s) {}",
                    failed, dropped);
        }
    }

    @PreDestroy
    void stop() {
        workers.shutdownNow();
    }

    private void run(UUID id, StreamId stream) {
        for (int attempt = 1;; attempt++) {
            Attempt a = new Attempt(id, stream);
            try {
                a.run();
                phase(id, stream, RebuildPhase.DONE);
                log.info("{}: rebuild {} done at position {}", stream, id, a.target);
                return;
            } catch (ResolverExportClient.GoneException e) {
                a.abandon();
                if (attempt >= maxAttempts) {
                    fail(id, stream, "gave up after " + attempt + " attempts: " + e.getMessage());
                    return;
                }
                log.warn("{}: rebuild {} restarts from a new export: {}", stream, id, e.getMessage());
                rebuilds.restart(id, e.getMessage());
                gauge(stream).set(RebuildPhase.LEASING.ordinal());
            } catch (Exception e) {
                a.abandon();
                log.error("{}: rebuild {} failed", stream, id, e);
                fail(id, stream, e.getClass().getSimpleName() + ": " + e.getMessage());
                return;
            }
        }
    }

    private void fail(UUID id, StreamId stream, String error) {
        rebuilds.fail(id, error);
        gauge(stream).set(RebuildPhase.FAILED.ordinal());
    }

    private void phase(UUID id, StreamId stream, RebuildPhase phase) {
        rebuilds.phase(id, phase);
        gauge(stream).set(phase.ordinal());
    }

    private AtomicInteger gauge(StreamId stream) {
        return phaseGauges.computeIfAbsent(stream, s -> {
            AtomicInteger value = new AtomicInteger(-1);
            Gauge.builder("product.rebuild.phase", value, AtomicInteger::get)
                    .description("phase of the stream's latest rebuild: 0 LEASING, 1 EXPORTING, 2 LOADING, "
                            + "3 CATCHING_UP, 4 CUTTING_OVER, 5 DONE, 6 FAILED, 7 ABORTED")
                    .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters);
            return value;
        });
    }

    /** One attempt: everything it created is undone by {@link #abandon} unless the cutover committed. */
    private final class Attempt {
        final UUID id;
        final StreamId stream;
        String leaseId;
        Long generation;
        boolean cutOver;
        long target;
        long epoch;
        long catchUpStart;
        long caughtUpEvents;

        Attempt(UUID id, StreamId stream) {
            this.id = id;
            this.stream = stream;
        }

        void run() throws Exception {
            phase(id, stream, RebuildPhase.LEASING);
            epoch = resolver.epoch(stream);
            leaseId = resolver.createLease(stream, epoch, leaseTtlSeconds, "product-rebuild-" + id);
            rebuilds.lease(id, leaseId);

            phase(id, stream, RebuildPhase.EXPORTING);
            String exportId = resolver.requestExport(stream, leaseId);
            rebuilds.export(id, exportId);
            String manifestKey = awaitReady(exportId);
            ExportManifest manifest = ExportObjectReader.manifest(store, manifestKey);
            if (!manifest.tenant().equals(stream.tenant()) || !manifest.catalog().equals(stream.catalog())
                    || manifest.epoch() != epoch) {
                throw new IllegalStateException("export " + exportId + " is of " + manifest.tenant() + "/"
                        + manifest.catalog() + " epoch " + manifest.epoch() + ", not " + stream + " epoch " + epoch);
            }

            phase(id, stream, RebuildPhase.LOADING);
            long loadStart = System.nanoTime();
            ShadowLoader.Loaded loaded;
            // the load makes no resolver call and may outlast the lease's TTL: renew it meanwhile
            try (LeaseKeeper keeper = new LeaseKeeper(() -> resolver.renewLease(leaseId, leaseTtlSeconds),
                    leaseTtlSeconds * 1000 / 3)) {
                loaded = loader.load(stream, manifestKey, manifest, rows -> rebuilds.loadedRows(id, rows));
            }
            generation = loaded.generationId();
            rebuilds.loaded(id, generation, loaded.rows(), manifest.cursor());
            throughput.loaded(stream, loaded.rows(), System.nanoTime() - loadStart);
            Map<String, Long> loadSteps = new LinkedHashMap<>();
            loaded.stepMillis().forEach((step, ms) -> loadSteps.put("load." + step, ms));
            rebuilds.steps(id, loadSteps);
            resolver.renewLease(leaseId, leaseTtlSeconds);

            phase(id, stream, RebuildPhase.CATCHING_UP);
            catchUpStart = System.nanoTime();
            long fetchNanos = 0;
            long applyNanos = 0;
            while (true) {
                long t0 = System.nanoTime();
                GenerationCursor shadow = tx.execute(s -> generations.lockGeneration(generation).orElseThrow());
                EventPage page = resolver.events(stream, shadow.chainPosition(), leaseId, epoch, pageLimit);
                long t1 = System.nanoTime();
                caughtUp(applyPage(page, shadow.chainDigest()));
                fetchNanos += t1 - t0;
                applyNanos += System.nanoTime() - t1;
                resolver.renewLease(leaseId, leaseTtlSeconds);
                if (page.through() >= page.head()) {
                    break;
                }
            }
            rebuilds.steps(id, Map.of("catchUp.fetch", fetchNanos / 1_000_000, "catchUp.apply",
                    applyNanos / 1_000_000, "catchUp.events", caughtUpEvents));

            phase(id, stream, RebuildPhase.CUTTING_OVER);
            cutover();
            rebuilds.target(id, target);
            resolver.registerConsumer(stream, epoch);
            resolver.progress(stream, epoch, target);
            resolver.releaseLease(leaseId);
            leaseId = null;
        }

        /** Polls the export until READY; renews the lease meanwhile. */
        private String awaitReady(String exportId) throws InterruptedException {
            long renewedAt = System.nanoTime();
            while (true) {
                JsonNode status = resolver.exportStatus(exportId);
                String s = status.path("status").stringValue();
                if ("READY".equals(s)) {
                    return status.path("manifestKey").stringValue();
                }
                if ("ABORTED".equals(s)) {
                    // the resolver aborts an export whose lease expired: same as a 410, restart from a new one
                    throw new ResolverExportClient.GoneException("export " + exportId + " was ABORTED: "
                            + status.path("error").stringValue());
                }
                if (!"RUNNING".equals(s)) {
                    throw new IllegalStateException("export " + exportId + " is " + s + ": "
                            + status.path("error").stringValue());
                }
                if (System.nanoTime() - renewedAt > leaseTtlSeconds * 1_000_000_000L / 3) {
                    resolver.renewLease(leaseId, leaseTtlSeconds);
                    renewedAt = System.nanoTime();
                }
                Thread.sleep(pollMillis);
            }
        }

        /** Counts events applied by catch-up or cutover into the throughput metrics. */
        private void caughtUp(int events) {
            caughtUpEvents += events;
            throughput.caughtUp(stream, events, caughtUpEvents, System.nanoTime() - catchUpStart);
        }

        /**
         * Verifies the page's chain from the shadow's digest and applies it in one transaction.
         *
         * @return the number of events applied
         */
        private int applyPage(EventPage page, String digestAtAfter) {
            List<EventWire.Split> splits = page.verify(digestAtAfter);
            if (splits.isEmpty()) {
                return 0;
            }
            List<IntegrationEvent> events = new ArrayList<>(splits.size());
            for (EventWire.Split split : splits) {
                events.add(parser.parseWire(split.wire(), split.chainDigest()));
            }
            GenerationCursor after = tx.execute(s -> {
                GenerationCursor locked = generations.lockGeneration(generation).orElseThrow();
                if (locked.chainPosition() != page.after()) {
                    throw new IllegalStateException("shadow generation " + generation + " moved to "
                            + locked.chainPosition() + " while a page after " + page.after() + " was read");
                }
                ApplyResult result = applier.apply(locked, events);
                generations.saveCursor(result.cursor());
                return result.cursor();
            });
            rebuilds.progress(id, after.appliedPosition(), events.size());
            return events.size();
        }

        /**
         * Under the stream's serving lock (the live applier waits): applies what the resolver committed since the
         * last page, requires every position up to the head H processed and none parked, and points the stream at
         * the shadow. The HTTP reads inside the transaction keep the live pause short: only the tail since the
         * last catch-up page is fetched.
         */
        private void cutover() {
            Long old = tx.execute(s -> {
                Optional<GenerationCursor> serving = generations.lockServing(stream);
                GenerationCursor shadow = generations.lockGeneration(generation).orElseThrow();
                while (true) {
                    EventPage page = resolver.events(stream, shadow.chainPosition(), leaseId, epoch, pageLimit);
                    List<EventWire.Split> splits = page.verify(shadow.chainDigest());
                    if (!splits.isEmpty()) {
                        List<IntegrationEvent> events = new ArrayList<>(splits.size());
                        for (EventWire.Split split : splits) {
                            events.add(parser.parseWire(split.wire(), split.chainDigest()));
                        }
                        shadow = applier.apply(shadow, events).cursor();
                        generations.saveCursor(shadow);
                        rebuilds.progress(id, shadow.appliedPosition(), events.size());
                        caughtUp(events.size());
                    }
                    if (page.through() >= page.head()) {
                        break;
                    }
                }
                long h = shadow.chainPosition();
                long parked = jdbc.sql(SQL_PARKED_AT_OR_BELOW).params(generation, h).query(Long.class).single();
                if (parked > 0 || shadow.appliedPosition() != h) {
                    throw new IllegalStateException(parked + " event(s) at or below the target " + h
                            + " are parked in the shadow generation (processed through " + shadow.appliedPosition()
                            + "): its state is not the resolver's; see docs/rebuild.md");
                }
                if (serving.isPresent() && serving.get().epoch() == epoch
                        && serving.get().appliedPosition() > h) {
                    throw new IllegalStateException("the serving generation is at " + serving.get().appliedPosition()
                            + ", past the resolver's head " + h);
                }
                jdbc.sql(SQL_POINT).params(stream.tenant(), stream.catalog(), generation).update();
                jdbc.sql(SQL_SERVING_STATUS).params(generation).update();
                target = h;
                return serving.map(GenerationCursor::generationId).orElse(null);
            });
            cutOver = true;
            if (old != null) {
                retirer.retire(old);
            }
        }

        /** Undoes what this attempt left: the shadow generation (unless it serves) and the lease. */
        void abandon() {
            if (generation != null && !cutOver) {
                try {
                    retirer.retire(generation);
                } catch (RuntimeException e) {
                    log.warn("{}: could not retire shadow generation {}: {}", stream, generation, e.getMessage());
                }
            }
            if (leaseId != null) {
                try {
                    resolver.releaseLease(leaseId);
                } catch (RuntimeException e) {
                    log.warn("{}: could not release lease {}: {}", stream, leaseId, e.getMessage());
                }
            }
        }
    }

    /** Thrown by the controller for a rebuild id it does not know. */
    static ApiException notFound(String id) {
        return new ApiException(ProblemCode.NOT_FOUND, "no rebuild " + id);
    }
}
