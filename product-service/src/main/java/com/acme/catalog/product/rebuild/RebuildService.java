package com.acme.catalog.product.rebuild;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.inbox.ApplyResult;
import com.acme.catalog.product.inbox.DeliveryParser;
import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.recovery.FencedOutException;
import com.acme.catalog.product.recovery.WorkerFence;
import com.acme.catalog.product.recovery.WorkerLeases;
import com.acme.catalog.product.resolver.ResolverClient;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.env.Environment;
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
 *
 * <p>A rebuild runs under this instance's worker lease of the stream ({@link WorkerLeases}): the load, every
 * catch-up page and the cutover each end with the fence check, so once another owner (or a newer fence) took the
 * lease none of them can commit. A rebuild whose worker lost the lease stays unfinished; the next holder of the
 * lease restarts it ({@link #resumeUnfinished}).
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
    private static final String SQL_DIVERGED = """
            SELECT diverged_at IS NOT NULL FROM generation WHERE generation_id = ?
            """;
    private static final String SQL_SERVING_STATUS = """
            UPDATE generation SET status = 'SERVING', updated_at = now() WHERE generation_id = ?
            """;

    private final RebuildRepository rebuilds;
    private final ResolverClient resolver;
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
    private final WorkerLeases leases;
    private final ProgressReporter progress;
    private final Environment env;
    private final StreamEpochs epochs;
    private final OldEpochAudit audit;
    /** Rebuilds running in this process, with the shadow generation of their current attempt once loaded. */
    private final Map<UUID, Attempt> running = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    RebuildService(RebuildRepository rebuilds, ResolverClient resolver, ShadowLoader loader,
            GenerationRetirer retirer, GenerationRepository generations, EventApplier applier, DeliveryParser parser,
            ObjectStore store, JdbcClient jdbc, PlatformTransactionManager tm, MeterRegistry meters,
            RebuildMetrics throughput, WorkerLeases leases, ProgressReporter progress, Environment env,
            StreamEpochs epochs, OldEpochAudit audit,
            @Value("${product.rebuild.lease-ttl-seconds:120}") long leaseTtlSeconds,
            @Value("${product.rebuild.page-limit:1000}") int pageLimit,
            @Value("${product.rebuild.max-attempts:3}") int maxAttempts,
            @Value("${product.rebuild.poll-ms:200}") long pollMillis,
            @Value("${product.rebuild.workers:2}") int workers) {
        this.rebuilds = rebuilds;
        this.epochs = epochs;
        this.audit = audit;
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
        this.leases = leases;
        this.progress = progress;
        this.env = env;
        leases.onAcquired(this::resumeUnfinished);
        this.workers = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "rebuild");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts a rebuild of {@code stream} under this instance's worker lease, or answers the one already running.
     *
     * @throws ApiException {@code WORKER_LEASE_HELD} while another instance holds the stream's worker lease
     */
    public UUID start(StreamId stream) {
        WorkerFence fence = leases.hold(stream).orElseThrow(() -> new ApiException(ProblemCode.WORKER_LEASE_HELD,
                "the recovery worker lease of " + stream + " is held by " + leases.holder(stream).orElse("another "
                        + "instance") + ", which runs its rebuilds"));
        synchronized (this) {
            Optional<UUID> active = rebuilds.active(stream);
            if (active.isPresent()) {
                return active.get();
            }
            UUID id = UuidV7.next();
            rebuilds.insert(id, stream);
            rebuilds.worker(id, fence.owner(), fence.fence());
            gauge(stream).set(RebuildPhase.LEASING.ordinal());
            submit(id, stream);
            return id;
        }
    }

    /** @return whether a rebuild of {@code stream} runs in this process */
    public boolean runsHere(StreamId stream) {
        return running.values().stream().anyMatch(a -> a.stream.equals(stream));
    }

    private void submit(UUID id, StreamId stream) {
        Attempt placeholder = new Attempt(id, stream, null);
        running.put(id, placeholder);
        try {
            workers.submit(() -> {
                try {
                    run(id, stream);
                } finally {
                    running.remove(id);
                }
            });
        } catch (RuntimeException e) {
            running.remove(id);
            throw e;
        }
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

    /** @return streams whose unfinished rebuilds or BUILDING generations wait for a lease holder to clean up */
    public List<StreamId> unfinishedStreams() {
        return rebuilds.unfinishedStreams();
    }

    /**
     * Runs when this instance acquires a stream's worker lease with a new fence: the rebuilds left unfinished
     * under an older fence (a stopped or replaced worker; never one running in this process) are restarted from a
     * new export (or FAILED after {@code max-attempts}), their resolver leases released, and the stream's BUILDING
     * generations that no rebuild of this process loads are retired.
     */
    void resumeUnfinished(WorkerFence fence) {
        StreamId stream = fence.stream();
        Set<Long> keep = new HashSet<>();
        running.values().stream().filter(a -> a.stream.equals(stream) && a.generation != null)
                .forEach(a -> keep.add(a.generation));
        List<RebuildRepository.Unfinished> orphans = rebuilds.unfinished(stream).stream()
                .filter(u -> !running.containsKey(u.rebuildId())).toList();
        List<Long> retired = retirer.retireBuilding(stream, keep);
        if (!orphans.isEmpty() || !retired.isEmpty()) {
            log.warn("{}: took over {} unfinished rebuild(s) under fence {}; retired BUILDING generation(s) {}",
                    stream, orphans.size(), fence.fence(), retired);
        }
        for (RebuildRepository.Unfinished u : orphans) {
            if (u.leaseId() != null) {
                try {
                    resolver.releaseLease(u.leaseId());
                } catch (RuntimeException e) {
                    log.warn("{}: could not release lease {} of rebuild {}: {}", stream, u.leaseId(), u.rebuildId(),
                            e.toString());
                }
            }
            String why = "the previous worker stopped during " + u.phase();
            if (u.attempt() >= maxAttempts) {
                fail(u.rebuildId(), stream, "gave up after " + u.attempt() + " attempts: " + why);
                continue;
            }
            rebuilds.restart(u.rebuildId(), why);
            rebuilds.worker(u.rebuildId(), fence.owner(), fence.fence());
            gauge(stream).set(RebuildPhase.LEASING.ordinal());
            submit(u.rebuildId(), stream);
        }
    }

    /** Running rebuilds stay unfinished: the next holder of the worker lease restarts them. */
    @PreDestroy
    void stop() {
        stopping = true;
        workers.shutdownNow();
    }

    private void run(UUID id, StreamId stream) {
        int attempt = rebuilds.find(id).map(Rebuild::attempt).orElse(1);
        for (;; attempt++) {
            Optional<WorkerFence> fence = stopping ? Optional.empty() : leases.hold(stream);
            if (fence.isEmpty()) {
                handOver(id, stream, "this instance no longer holds the worker lease");
                return;
            }
            rebuilds.worker(id, fence.get().owner(), fence.get().fence());
            Attempt a = new Attempt(id, stream, fence.get());
            running.put(id, a);
            String restartWhy;
            try {
                a.run();
                phase(id, stream, RebuildPhase.DONE);
                log.info("{}: rebuild {} done at position {}", stream, id, a.target);
                return;
            } catch (ResolverClient.GoneException e) {
                a.abandon();
                restartWhy = e.getMessage();
            } catch (Exception e) {
                a.abandon();
                if (stopping) {
                    handOver(id, stream, "the product stopped during " + phaseOf(id));
                    return;
                }
                if (e instanceof FencedOutException || !leases.isHeld(fence.get())) {
                    // another owner restarts it, or this instance holds a newer fence and restarts it below
                    log.warn("{}: rebuild {} lost its worker lease: {}", stream, id, e.getMessage());
                    restartWhy = "lost the worker lease: " + e.getMessage();
                } else {
                    log.error("{}: rebuild {} failed", stream, id, e);
                    fail(id, stream, e.getClass().getSimpleName() + ": " + e.getMessage());
                    return;
                }
            }
            if (stopping || leases.hold(stream).isEmpty()) {
                // the row belongs to the lease's next holder now: leave it as it is
                handOver(id, stream, restartWhy);
                return;
            }
            if (attempt >= maxAttempts) {
                fail(id, stream, "gave up after " + attempt + " attempts: " + restartWhy);
                return;
            }
            log.warn("{}: rebuild {} restarts from a new export: {}", stream, id, restartWhy);
            rebuilds.restart(id, restartWhy);
            gauge(stream).set(RebuildPhase.LEASING.ordinal());
        }
    }

    private void handOver(UUID id, StreamId stream, String why) {
        log.warn("{}: rebuild {} left for the next holder of the worker lease: {}", stream, id, why);
        rebuilds.handover(id, why);
    }

    private String phaseOf(UUID id) {
        return rebuilds.find(id).map(r -> r.phase().name()).orElse("?");
    }

    /**
     * Test only, off by default: {@code product.rebuild.test-pause-ms.<PHASE>} holds a rebuild that long at one
     * point of the phase, so crash tests can kill the process there. LOADING: before the load commits;
     * CATCHING_UP: once per attempt, after the first page committed; CUTTING_OVER: in the cutover transaction
     * (holding the live lock) just before the swap.
     */
    private void testPause(RebuildPhase phase) {
        long ms = env.getProperty("product.rebuild.test-pause-ms." + phase.name(), Long.class, 0L);
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted in the test pause of " + phase, e);
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
        final WorkerFence fence;
        String leaseId;
        volatile Long generation;
        boolean cutOver;
        boolean pausedCatchingUp;
        long target;
        long epoch;
        long catchUpStart;
        long caughtUpEvents;

        Attempt(UUID id, StreamId stream, WorkerFence fence) {
            this.id = id;
            this.stream = stream;
            this.fence = fence;
        }

        void run() throws Exception {
            phase(id, stream, RebuildPhase.LEASING);
            epoch = resolver.epoch(stream);
            epochs.learn(stream, epoch);
            leaseId = resolver.createLease(stream, epoch, leaseTtlSeconds, "product-rebuild-" + id);
            rebuilds.lease(id, leaseId);

            phase(id, stream, RebuildPhase.EXPORTING);
            String exportId = resolver.requestExport(stream, leaseId);
            rebuilds.export(id, exportId);
            String manifestKey = awaitReady(exportId);
            ExportManifest manifest = ExportObjectReader.manifest(store, manifestKey);
            long current = epochs.current(stream);
            if (manifest.epoch() < current) {
                // an export of an epoch older than the current one is never loaded: audited, restarted
                audit.recordExport(stream, manifest.epoch(), manifest.cursor(), current);
                audit.count(stream, OldEpochAudit.Source.EXPORT, 1);
                throw new ResolverClient.GoneException("export " + exportId + " is of epoch "
                        + manifest.epoch() + ", older than the current epoch " + current);
            }
            if (!manifest.tenant().equals(stream.tenant()) || !manifest.catalog().equals(stream.catalog())
                    || manifest.epoch() != epoch) {
                throw new IllegalStateException("export " + exportId + " is of " + manifest.tenant() + "/"
                        + manifest.catalog() + " epoch " + manifest.epoch() + ", not " + stream + " epoch " + epoch);
            }

            phase(id, stream, RebuildPhase.LOADING);
            long loadStart = System.nanoTime();
            ShadowLoader.Loaded loaded;
            // the load makes no resolver call and may outlast the lease's TTL: renew it meanwhile;
            // the loader fills committed plain tables (the generation is known at once, so abandon() drops them)
            // and attaches them in this transaction, which commits only under the fence
            try (LeaseKeeper keeper = new LeaseKeeper(() -> resolver.renewLease(leaseId, leaseTtlSeconds),
                    leaseTtlSeconds * 1000 / 3)) {
                loaded = tx.execute(s -> {
                    ShadowLoader.Loaded l = loader.load(stream, manifestKey, manifest,
                            rows -> rebuilds.loadedRows(id, rows), g -> generation = g);
                    testPause(RebuildPhase.LOADING);
                    leases.requireHeld(fence);
                    return l;
                });
            }
            generation = loaded.generationId();
            rebuilds.loaded(id, generation, loaded.rows(), manifest.cursor());
            throughput.loaded(stream, loaded.rows(), System.nanoTime() - loadStart);
            Map<String, Long> loadSteps = new LinkedHashMap<>();
            loaded.stepMillis().forEach((step, ms) -> loadSteps.put("load." + step, ms));
            rebuilds.steps(id, loadSteps);
            resolver.renewLease(leaseId, leaseTtlSeconds);

            phase(id, stream, RebuildPhase.CATCHING_UP);
            catchUp();

            phase(id, stream, RebuildPhase.CUTTING_OVER);
            cutover();
            rebuilds.target(id, target);
            resolver.registerConsumer(stream, epoch);
            resolver.progress(stream, epoch, target);
            progress.restart(stream, epoch, target);
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
                    throw new ResolverClient.GoneException("export " + exportId + " was ABORTED: "
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
         * Applies the retained events after W page by page, one transaction each, until a page reaches the head.
         * One page ahead is fetched, chain-verified and parsed on another thread while the current one applies
         * ({@code catchUp.fetch} is the time the apply waited for a page); the lease is renewed every third of its
         * TTL.
         */
        private void catchUp() throws Exception {
            catchUpStart = System.nanoTime();
            long waitNanos = 0;
            long applyNanos = 0;
            GenerationCursor shadow = tx.execute(s -> generations.lockGeneration(generation).orElseThrow());
            ExecutorService fetcher = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "rebuild-fetch");
                t.setDaemon(true);
                return t;
            });
            long renewedAt = System.nanoTime();
            try {
                Future<PreparedPage> next = fetcher.submit(() -> fetch(shadow.chainPosition(), shadow.chainDigest()));
                while (true) {
                    long t0 = System.nanoTime();
                    PreparedPage page = await(next);
                    long t1 = System.nanoTime();
                    boolean last = page.page().through() >= page.page().head();
                    if (!last) {
                        next = fetcher.submit(() -> fetch(page.page().through(), page.digestThrough()));
                    }
                    caughtUp(applyPage(page));
                    waitNanos += t1 - t0;
                    applyNanos += System.nanoTime() - t1;
                    if (!pausedCatchingUp) {
                        pausedCatchingUp = true;
                        testPause(RebuildPhase.CATCHING_UP);
                    }
                    if (System.nanoTime() - renewedAt > leaseTtlSeconds * 1_000_000_000L / 3) {
                        resolver.renewLease(leaseId, leaseTtlSeconds);
                        renewedAt = System.nanoTime();
                    }
                    if (last) {
                        break;
                    }
                }
            } finally {
                fetcher.shutdownNow();
            }
            resolver.renewLease(leaseId, leaseTtlSeconds);
            rebuilds.steps(id, Map.of("catchUp.fetch", waitNanos / 1_000_000, "catchUp.apply",
                    applyNanos / 1_000_000, "catchUp.events", caughtUpEvents));
        }

        /** Fetches the page after {@code after}, verifies its chain from {@code digestAtAfter} and parses it. */
        private PreparedPage fetch(long after, String digestAtAfter) {
            EventPage page = resolver.events(stream, after, leaseId, epoch, pageLimit);
            List<EventWire.Split> splits = page.verify(digestAtAfter);
            List<IntegrationEvent> events = new ArrayList<>(splits.size());
            for (EventWire.Split split : splits) {
                events.add(parser.parseWire(split.wire(), split.chainDigest()));
            }
            return new PreparedPage(page, digestAtAfter, events);
        }

        private static PreparedPage await(Future<PreparedPage> page) throws Exception {
            try {
                return page.get();
            } catch (ExecutionException e) {
                // a 410 (GoneException) restarts from a new export: rethrow what the fetch threw
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw e;
            }
        }

        /**
         * Applies a verified page in one transaction, if the shadow still is where the page starts.
         *
         * @return the number of events applied
         */
        private int applyPage(PreparedPage prepared) {
            EventPage page = prepared.page();
            List<IntegrationEvent> events = prepared.events();
            if (events.isEmpty()) {
                return 0;
            }
            GenerationCursor after = tx.execute(s -> {
                GenerationCursor locked = generations.lockGeneration(generation).orElseThrow();
                if (locked.chainPosition() != page.after()
                        || !locked.chainDigest().equals(prepared.digestAtAfter())) {
                    throw new IllegalStateException("shadow generation " + generation + " is at "
                            + locked.chainPosition() + " while a page after " + page.after() + " was read");
                }
                ApplyResult result = applier.apply(locked, events);
                leases.requireHeld(fence);
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
                        rebuilds.progress(id, shadow.appliedPosition(), events.size());
                        caughtUp(events.size());
                    }
                    if (page.through() >= page.head()) {
                        break;
                    }
                }
                long h = shadow.chainPosition();
                long current = epochs.currentInDatabase(stream);
                if (current > epoch) {
                    throw new ResolverClient.GoneException("the current epoch is " + current
                            + ", this rebuild is of epoch " + epoch);
                }
                long parked = jdbc.sql(SQL_PARKED_AT_OR_BELOW).params(generation, h).query(Long.class).single();
                if (parked > 0 || shadow.appliedPosition() != h) {
                    throw new IllegalStateException(parked + " event(s) at or below the target " + h
                            + " are parked in the shadow generation (processed through " + shadow.appliedPosition()
                            + "): its state is not the resolver's; see docs/rebuild.md");
                }
                // ahead of the resolver is a rollback signal, unless the serving copy is known to have diverged
                // (it may hold a forged event the resolver never committed): then the rebuild is the repair
                if (serving.isPresent() && serving.get().epoch() == epoch && serving.get().appliedPosition() > h
                        && !jdbc.sql(SQL_DIVERGED).params(serving.get().generationId()).query(Boolean.class).single()) {
                    throw new IllegalStateException("the serving generation is at " + serving.get().appliedPosition()
                            + ", past the resolver's head " + h);
                }
                testPause(RebuildPhase.CUTTING_OVER);
                jdbc.sql(SQL_POINT).params(stream.tenant(), stream.catalog(), generation).update();
                jdbc.sql(SQL_SERVING_STATUS).params(generation).update();
                leases.requireHeld(fence);
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

    /** A catch-up page, its chain verified from {@code digestAtAfter}, its events parsed. */
    private record PreparedPage(EventPage page, String digestAtAfter, List<IntegrationEvent> events) {
        String digestThrough() {
            return page.chainDigestThrough();
        }
    }

    /** Thrown by the controller for a rebuild id it does not know. */
    static ApiException notFound(String id) {
        return new ApiException(ProblemCode.NOT_FOUND, "no rebuild " + id);
    }
}
