package com.acme.catalog.product.recovery;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.concurrent.DaemonThreads;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.contracts.retry.Backoff;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.rebuild.Rebuild;
import com.acme.catalog.product.rebuild.RebuildPhase;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.rebuild.RestartRequired;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The recovery worker (docs/rebuild.md "Recovery worker"). Per stream, and only while this instance holds the
 * stream's worker lease, a cycle first proves the serving generation's chain is the resolver's (its digest at the
 * generation's chain position; a divergence is marked, counted and rebuilt, never CURRENT), then compares the
 * verified-through position with the resolver's boundary (its committed cursor) and closes the difference (on a periodic trigger only what the relay has not
 * delivered for a whole interval, so it does not race a working relay): bounded catch-up pages through
 * {@code GET /v1/exports/events}, or a rebuild when there is no serving generation, the epoch changed, or the
 * resolver answers 410; a stream it should serve and has no generation for is opened ({@code open}: empty and
 * caught up while the resolver retains it from position 1, else rebuilt). Triggers: startup (listed streams), a live
 * gap or chain break, deliveries resuming after a failure, and the {@link StreamSweep}, which asks only for streams
 * whose epoch, head or digest moved. A cycle that used its page budget continues in the next one; failures back off
 * exponentially to a cap and show as RETRYING (BLOCKED for a chain that does not verify) in
 * {@code recovery_status}. One thread; nothing here is part of readiness.
 */
@Component
public class RecoveryWorker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RecoveryWorker.class);

    /** Why a cycle runs. */
    public enum Trigger { STARTUP, PERIODIC, GAP, CHAIN_BREAK, DELIVERIES_RESUMED, EPOCH_MISMATCH, RETRY, CONTINUE }

    enum Outcome { NOT_OWNER, IDLE, CURRENT, CAUGHT_UP, MORE, REBUILDING }

    /** A condition retrying blindly will not fix; shown as BLOCKED, still retried at the backoff's pace. */
    static final class BlockedException extends RuntimeException {
        BlockedException(String message) {
            super(message);
        }
    }

    private final WorkerLeases leases;
    private final RebuildService rebuilds;
    private final ResolverClient resolver;
    private final GenerationRepository generations;
    private final ServingCatchUp catchUp;
    private final ChainDivergence divergence;
    private final RecoveryStatusRepository status;
    private final MeterRegistry meters;
    private final StreamEpochs epochs;
    private final OldEpochAudit audit;
    private final Clock clock;
    private final boolean enabled;
    private final long intervalMs;
    private final long gapGraceMs;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final int maxPagesPerCycle;
    private final List<StreamId> configured;
    private final ProductStreamsProperties subscriptions;
    private final TransactionTemplate tx;
    private final Map<StreamId, ScheduledFuture<?>> pending = new ConcurrentHashMap<>();
    /** Why each pending cycle was asked for (a stronger reason replaces a pending periodic one). */
    private final Map<StreamId, Trigger> pendingWhy = new ConcurrentHashMap<>();
    private final Map<StreamId, Backoff> backoffs = new ConcurrentHashMap<>();
    /** The rebuild the worker started last per stream: a FAILED one counts as a failed cycle. */
    private final Map<StreamId, UUID> started = new ConcurrentHashMap<>();
    /** The resolver's cursor at the stream's previous periodic cycle. */
    private final Map<StreamId, Long> periodicBoundary = new ConcurrentHashMap<>();
    private ScheduledExecutorService thread;
    private volatile boolean running;

    RecoveryWorker(WorkerLeases leases, RebuildService rebuilds, ResolverClient resolver,
            GenerationRepository generations, ServingCatchUp catchUp, ChainDivergence divergence,
            RecoveryStatusRepository status, MeterRegistry meters, StreamEpochs epochs, OldEpochAudit audit,
            Optional<Clock> clock, RecoveryProperties properties, ProductStreamsProperties streams,
            TransactionTemplate tx) {
        this.tx = tx;
        this.subscriptions = streams;
        this.leases = leases;
        this.rebuilds = rebuilds;
        this.resolver = resolver;
        this.generations = generations;
        this.catchUp = catchUp;
        this.divergence = divergence;
        this.status = status;
        this.meters = meters;
        this.epochs = epochs;
        this.audit = audit;
        this.clock = clock.orElse(Clock.systemUTC());
        this.enabled = properties.enabled();
        this.intervalMs = properties.interval().toMillis();
        this.gapGraceMs = properties.gapGrace().toMillis();
        this.initialBackoff = properties.initialBackoff();
        this.maxBackoff = properties.maxBackoff();
        this.maxPagesPerCycle = properties.maxPagesPerCycle();
        this.configured = streams.list();
    }

    /** Asks for a cycle of {@code stream}; coalesces with one already due sooner and respects the backoff. */
    public void trigger(StreamId stream, Trigger why) {
        schedule(stream, why, why == Trigger.GAP ? gapGraceMs : 0);
    }

    /**
     * A new epoch was learnt for {@code stream}: the resolver answers again, so the backoff of failures from while it
     * was away (a restore keeps it down for a while) no longer applies; a cycle runs at once and starts the rebuild.
     */
    public void epochChanged(StreamId stream) {
        backoff(stream).succeeded();
        schedule(stream, Trigger.EPOCH_MISMATCH, 0);
    }

    private synchronized void schedule(StreamId stream, Trigger why, long delayMs) {
        if (!running) {
            return;
        }
        long wait = Math.max(delayMs, backoff(stream).remaining().toMillis());
        ScheduledFuture<?> existing = pending.get(stream);
        Trigger reason = why;
        // a retry after a failure replaces a sooner trigger that came in meanwhile: the backoff holds
        if (existing != null && why != Trigger.RETRY) {
            long existingWait = Math.max(0, existing.getDelay(TimeUnit.MILLISECONDS));
            Trigger existingWhy = pendingWhy.getOrDefault(stream, Trigger.PERIODIC);
            // a periodic cycle leaves a behind stream to the relay, so two coalesced triggers run once, as soon as
            // either asked, for the stronger reason (a live gap signalled beside a sweep's trigger is caught up)
            if (existingWait <= wait) {
                if (existingWhy != Trigger.PERIODIC || why == Trigger.PERIODIC) {
                    return;
                }
                wait = existingWait;
            } else if (why == Trigger.PERIODIC && existingWhy != Trigger.PERIODIC) {
                reason = existingWhy;
            }
        }
        if (existing != null) {
            existing.cancel(false);
        }
        Trigger run = reason;
        pendingWhy.put(stream, run);
        pending.put(stream, thread.schedule(() -> runCycle(stream, run), wait, TimeUnit.MILLISECONDS));
    }

    /**
     * At start: the listed streams and those with an unfinished rebuild. Served streams and streams of a subscription
     * are checked by the first {@link StreamSweep}, which asks for a cycle only where something moved.
     */
    @EventListener(ApplicationReadyEvent.class)
    void atStartup() {
        Set<StreamId> out = new LinkedHashSet<>(configured);
        out.addAll(rebuilds.unfinishedStreams());
        for (StreamId s : out) {
            trigger(s, Trigger.STARTUP);
        }
    }

    /**
     * Every interval, the streams with an unfinished rebuild (their lease holder cleans up). Everything else periodic
     * is the {@link StreamSweep}'s, batched over streams.
     */
    private void periodic() {
        try {
            for (StreamId s : rebuilds.unfinishedStreams()) {
                trigger(s, Trigger.PERIODIC);
            }
        } catch (RuntimeException e) {
            log.warn("could not list the streams to recover: {}", e.toString());
        }
    }

    private void runCycle(StreamId s, Trigger why) {
        synchronized (this) {
            // under the lock: the trigger that scheduled this run has put it into pending by now
            pending.remove(s);
            pendingWhy.remove(s);
        }
        counter("product.recovery.cycles", s).increment();
        Backoff backoff = backoff(s);
        try {
            Outcome outcome = cycle(s, why);
            log.debug("{}: recovery cycle ({}) ended {}", s, why, outcome);
            backoff.succeeded();
            if (outcome == Outcome.MORE) {
                schedule(s, Trigger.CONTINUE, 0);
            }
        } catch (FencedOutException e) {
            log.warn("{}: recovery cycle stopped, the worker lease moved: {}", s, e.getMessage());
        } catch (ServingCatchUp.SupersededException e) {
            log.info("{}: recovery cycle superseded: {}", s, e.getMessage());
            schedule(s, Trigger.CONTINUE, 0);
        } catch (RuntimeException e) {
            counter("product.recovery.failures", s).increment();
            Duration wait = backoff.failed();
            boolean blocked = e instanceof BlockedException
                    || e instanceof ApiException a && a.code() == ProblemCode.CHAIN_BROKEN;
            String reason = (blocked ? "" : "RECOVERY_FAILED: ") + describe(e);
            log.warn("{}: recovery cycle ({}) failed {} time(s) in a row, next attempt in {} ms: {}", s, why,
                    backoff.failures(), wait.toMillis(), reason);
            try {
                status.trouble(s, blocked ? "BLOCKED" : "RETRYING", reason, backoff.failures(),
                        backoff.notBefore());
            } catch (RuntimeException statusFailure) {
                log.warn("{}: could not record the recovery status: {}", s, statusFailure.toString());
            }
            schedule(s, Trigger.RETRY, wait.toMillis());
        }
    }

    /** One cycle; package-visible so tests can run it on their thread. */
    Outcome cycle(StreamId s, Trigger why) {
        Optional<WorkerFence> fence = leases.hold(s);
        if (fence.isEmpty()) {
            return Outcome.NOT_OWNER;
        }
        checkStartedRebuild(s);
        if (rebuilds.runsHere(s)) {
            return Outcome.REBUILDING;
        }
        Optional<GenerationCursor> serving = generations.serving(s);
        if (serving.isEmpty()) {
            if (!subscriptions.matches(s)) {
                return Outcome.IDLE;
            }
            return open(s);
        }
        GenerationCursor c = serving.get();
        // the control store's current epoch (through the resolver's epoch API), then the resolver's cursor; while
        // the control store is out of reach (503) the epoch known and the resolver's open cursor's epoch decide
        long current = 0;
        try {
            current = resolver.currentEpoch(s);
            epochs.learn(s, current);
        } catch (ResolverClient.GoneException e) {
            throw e;
        } catch (RuntimeException e) {
            log.debug("{}: the current epoch could not be read: {}", s, e.toString());
        }
        RetentionView source = resolver.status(s);
        long newest = Math.max(Math.max(current, source.epoch()), epochs.current(s));
        if (newest > c.epoch()) {
            discardHeld(c, newest);
            return rebuild(s, "the current epoch is " + newest + ", the product serves " + c.epoch());
        }
        if (source.epoch() < c.epoch()) {
            throw new BlockedException("EPOCH_BEHIND: the resolver is at epoch " + source.epoch()
                    + " but the product serves epoch " + c.epoch());
        }
        if (c.appliedPosition() > source.cursor() && divergence.recorded(c.generationId()).isEmpty()) {
            Optional<String> rolledBack = aheadOfResolver(c, source);
            if (rolledBack.isPresent()) {
                return diverged(c, rolledBack.get());
            }
        }
        Optional<String> diverged = divergence.recorded(c.generationId()).or(() -> divergence.check(c));
        if (diverged.isPresent()) {
            return diverged(c, diverged.get());
        }
        if (c.appliedPosition() >= source.cursor()) {
            status.ok(s, source.epoch(), source.cursor(), true);
            periodicBoundary.put(s, source.cursor());
            return Outcome.CURRENT;
        }
        if (why == Trigger.PERIODIC) {
            // the relay is delivering: catch up only what it has not delivered for a whole interval
            Long previous = periodicBoundary.put(s, source.cursor());
            if (previous == null || c.appliedPosition() >= previous) {
                status.ok(s, source.epoch(), source.cursor(), false);
                return Outcome.IDLE;
            }
        }
        ServingCatchUp.Result r;
        try {
            r = catchUp.run(fence.get(), source.epoch(), maxPagesPerCycle);
        } catch (ResolverClient.GoneException e) {
            return rebuild(s, "catch-up answered 410: " + e.getMessage());
        } catch (RestartRequired e) {
            return rebuild(s, "catch-up must start over: " + e.getMessage());
        } catch (ServingCatchUp.DivergedException e) {
            return diverged(c, e.getMessage());
        }
        boolean verified = r.cursor() != null && r.cursor().appliedPosition() >= source.cursor();
        status.ok(s, source.epoch(), Math.max(source.cursor(), r.cursor() == null ? 0 : r.cursor().chainPosition()),
                verified);
        log.info("{}: recovery ({}) caught up {} event(s) in {} page(s) to {}", s, why, r.events(), r.pages(),
                r.cursor() == null ? "?" : r.cursor().appliedPosition());
        return r.reachedHead() ? Outcome.CAUGHT_UP : Outcome.MORE;
    }

    /**
     * The product applied a position the resolver's cursor (same epoch) is behind: it holds what the resolver's
     * database no longer has (a restore) or never had (a forged delivery). The product reports that position, the
     * consumer's rollback signal (docs/epochs.md "Rollback detection"): a resolver that answers
     * {@code HISTORY_ROLLED_BACK} refuses writes and the relay until an operator rotates the epoch.
     *
     * @return the divergence reason when the resolver confirmed a rollback (the generation is then marked and
     *         replaced by a rebuild from the resolver's state; the rotation makes it rebuild again in the new epoch);
     *         empty otherwise (the chain comparison decides)
     */
    private Optional<String> aheadOfResolver(GenerationCursor c, RetentionView source) {
        Optional<String> refused;
        try {
            refused = resolver.reportAhead(c.stream(), c.epoch(), c.appliedPosition());
        } catch (RuntimeException e) {
            log.warn("{}: could not report position {} ahead of the resolver's cursor {}: {}", c.stream(),
                    c.appliedPosition(), source.cursor(), e.toString());
            return Optional.empty();
        }
        if (refused.isPresent() && refused.get().equals("HISTORY_ROLLED_BACK")) {
            return Optional.of("the product applied position " + c.appliedPosition() + " of epoch " + c.epoch()
                    + ", which the resolver never committed (its cursor is at " + source.cursor() + "); reported, the "
                    + "resolver confirmed HISTORY_ROLLED_BACK: its history was rolled back (a restore) and it refuses "
                    + "writes until an operator rotates the epoch (docs/runbooks/restore.md)");
        }
        return Optional.empty();
    }

    /**
     * Opens a stream the product should serve and does not (docs/streams.md): it costs what the stream holds. While the
     * resolver still retains the stream from position 1 (pruned-through 0), an empty generation at 0 of its epoch
     * starts serving and the next cycle catches it up from the retained events (the live apply, bounded pages; one
     * page for a small stream), with no export; a listed stream's consumer is registered first, so the relay
     * delivers what follows. A pruned stream is rebuilt from an export. A stream without any write yet waits for
     * its first delivery.
     */
    private Outcome open(StreamId s) {
        Optional<RetentionView> source = resolver.statusIfKnown(s);
        if (source.isEmpty()) {
            status.ok(s, null, null, false);
            return Outcome.IDLE;
        }
        RetentionView v = source.get();
        if (v.prunedThrough() > 0) {
            return rebuild(s, "no serving generation, and the resolver pruned the stream through "
                    + v.prunedThrough());
        }
        if (configured.contains(s)) {
            resolver.registerConsumer(s, v.epoch());
        }
        tx.executeWithoutResult(t -> generations.startServingEmpty(s, v.epoch()));
        log.info("{}: opened at position 0 of epoch {} without an export; catching up {} retained event(s)", s,
                v.epoch(), v.cursor());
        return v.cursor() > 0 ? Outcome.MORE : Outcome.CURRENT;
    }

    /**
     * Held (parked or pending) events of a generation of an old epoch will never be applied: they go to the audit
     * as PARKED, so completeness no longer waits for them.
     */
    private void discardHeld(GenerationCursor c, long current) {
        int n = audit.discardHeld(c.generationId(), c.stream(), c.epoch(), current);
        if (n > 0) {
            audit.count(c.stream(), OldEpochAudit.Source.PARKED, n);
            log.info("{}: discarded {} held event(s) of epoch {} into the old-epoch audit", c.stream(), n, c.epoch());
        }
    }

    /** The serving generation's chain is not the resolver's: it is marked (BLOCKED, counted) and rebuilt. */
    private Outcome diverged(GenerationCursor c, String why) {
        divergence.mark(c, why);
        return rebuild(c.stream(), "the serving generation diverged from the resolver: " + why);
    }

    /** A rebuild the worker started that FAILED counts as a failed cycle, so restarts back off too. */
    private void checkStartedRebuild(StreamId s) {
        UUID id = started.get(s);
        if (id == null) {
            return;
        }
        Optional<Rebuild> r = rebuilds.find(id);
        if (r.isEmpty() || r.get().phase().isFinal()) {
            started.remove(s);
        }
        if (r.isPresent() && r.get().phase() == RebuildPhase.FAILED) {
            throw new IllegalStateException("rebuild " + id + " failed: " + r.get().error());
        }
    }

    private Outcome rebuild(StreamId s, String why) {
        UUID id = rebuilds.start(s);
        started.put(s, id);
        log.info("{}: recovery started rebuild {}: {}", s, id, why);
        status.ok(s, null, null, false);
        return Outcome.REBUILDING;
    }

    private Backoff backoff(StreamId s) {
        return backoffs.computeIfAbsent(s, k -> new Backoff(initialBackoff, maxBackoff, clock));
    }

    private Counter counter(String name, StreamId s) {
        // per instance, not per stream (docs/metrics.md): the status endpoint tells which stream keeps failing
        return Counter.builder(name)
                .description(name.endsWith("failures") ? "recovery cycles that failed" : "recovery cycles run")
                .register(meters);
    }

    private static String describe(RuntimeException e) {
        String m = e.getMessage();
        if (e instanceof ApiException a) {
            return a.code() + ": " + m;
        }
        return e instanceof BlockedException ? m : e.getClass().getSimpleName() + ": " + m;
    }

    @Override
    public synchronized void start() {
        if (!enabled) {
            log.info("the recovery worker is disabled (product.recovery.enabled=false)");
            return;
        }
        thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("recovery-worker"));
        thread.scheduleWithFixedDelay(this::periodic, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        running = true;
    }

    /** Cancels what is scheduled; {@link WorkerLeases} releases the leases after this stopped. */
    @Override
    public synchronized void stop() {
        running = false;
        if (thread != null) {
            thread.shutdownNow();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The {@code tenant/catalog} entries of {@code PRODUCT_STREAMS} (patterns are parsed but not listed). */
    public static List<StreamId> parseStreams(String streams) {
        return new ProductStreamsProperties(streams).list();
    }
}
