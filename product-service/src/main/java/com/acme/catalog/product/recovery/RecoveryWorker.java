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
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.platform.retry.Backoff;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.rebuild.FailureReasons;
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

    /** One step of a cycle: decides its outcome, or lets the next guard run ({@link #NEXT}). */
    @FunctionalInterface
    private interface Guard {
        Optional<Outcome> decide(Cycle c);
    }

    private static final Optional<Outcome> NEXT = Optional.empty();

    /**
     * What one cycle learnt, as its guards fill it in: the fence once the lease is held, the serving generation
     * once there is one, the resolver's view once the epochs were compared. Confined to the worker's thread.
     */
    private static final class Cycle {
        final StreamId stream;
        final Trigger why;
        WorkerFence fence;
        GenerationCursor serving;
        RetentionView source;

        Cycle(StreamId stream, Trigger why) {
            this.stream = stream;
            this.why = why;
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
    /** The cycle asked for and not run yet, per stream, with why (a stronger reason replaces a periodic one). */
    private final Map<StreamId, Pending> pending = new ConcurrentHashMap<>();
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
        Due asked = new Due(Math.max(delayMs, backoff(stream).remaining().toMillis()), why);
        pending.compute(stream, (s, existing) -> {
            Optional<Due> run = existing == null ? Optional.of(asked) : Due.coalesce(existing.due(), asked);
            if (run.isEmpty()) {
                return existing;
            }
            if (existing != null) {
                existing.future().cancel(false);
            }
            Trigger reason = run.get().why();
            return new Pending(thread.schedule(() -> runCycle(s, reason), run.get().waitMs(), TimeUnit.MILLISECONDS),
                    reason);
        });
    }

    /** A scheduled cycle and the reason it runs for: one entry, so the two are replaced together. */
    private record Pending(ScheduledFuture<?> future, Trigger why) {
        Due due() {
            return new Due(Math.max(0, future.getDelay(TimeUnit.MILLISECONDS)), why);
        }
    }

    /** A cycle asked for: due in {@code waitMs}, for {@code why}. */
    record Due(long waitMs, Trigger why) {

        /**
         * What runs when {@code asked} comes while {@code pending} waits; empty: the pending one stands. A retry after
         * a failure replaces it (the backoff holds). Otherwise the two run once, as soon as either asked, for the
         * stronger reason: a periodic cycle leaves a behind stream to the relay, so a live gap signalled beside a
         * sweep's trigger must keep its reason and be caught up.
         */
        static Optional<Due> coalesce(Due pending, Due asked) {
            if (asked.why == Trigger.RETRY) {
                return Optional.of(asked);
            }
            boolean pendingIsWeaker = pending.why == Trigger.PERIODIC && asked.why != Trigger.PERIODIC;
            if (pending.waitMs <= asked.waitMs) {
                return pendingIsWeaker ? Optional.of(new Due(pending.waitMs, asked.why)) : Optional.empty();
            }
            boolean askedIsWeaker = asked.why == Trigger.PERIODIC && pending.why != Trigger.PERIODIC;
            return Optional.of(askedIsWeaker ? new Due(asked.waitMs, pending.why) : asked);
        }
    }

    /**
     * At start: the listed streams, those with an unfinished rebuild and those served by an older projection version
     * than this instance's (a projection upgrade). Served streams and streams of a subscription
     * are checked by the first {@link StreamSweep}, which asks for a cycle only where something moved.
     */
    @EventListener(ApplicationReadyEvent.class)
    void atStartup() {
        Set<StreamId> out = new LinkedHashSet<>(configured);
        out.addAll(rebuilds.unfinishedStreams());
        out.addAll(generations.servedBelowCurrentVersion());
        for (StreamId s : out) {
            trigger(s, Trigger.STARTUP);
        }
    }

    /**
     * Every interval, the streams with an unfinished rebuild (their lease holder cleans up) and those served by an
     * older projection version (an upgrade whose instance stopped or lost the lease). Everything else periodic
     * is the {@link StreamSweep}'s, batched over streams.
     */
    private void periodic() {
        try {
            for (StreamId s : rebuilds.unfinishedStreams()) {
                trigger(s, Trigger.PERIODIC);
            }
            // a projection upgrade another instance of this version did not finish (it stopped, or the lease moved)
            for (StreamId s : generations.servedBelowCurrentVersion()) {
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

    /**
     * One cycle: its guards in order, each deciding the cycle's outcome (or failing it) or leaving it to the next;
     * what none of them decides is caught up. Package-visible so tests can run it on their thread.
     */
    Outcome cycle(StreamId s, Trigger why) {
        Cycle c = new Cycle(s, why);
        return firstDecision(c,
                this::notTheLeaseHolder,
                this::rebuildUnderWay,
                this::notServing,
                this::servedByNewerVersion,
                this::epochMoved,
                this::epochBehind,
                this::rolledBackBeneath,
                this::chainDiverged,
                this::olderVersionServed,
                this::alreadyCurrent,
                this::leftToTheRelay)
                .orElseGet(() -> catchUpPages(c));
    }

    private static Optional<Outcome> firstDecision(Cycle c, Guard... guards) {
        for (Guard g : guards) {
            Optional<Outcome> decided = g.decide(c);
            if (decided.isPresent()) {
                return decided;
            }
        }
        return NEXT;
    }

    /** Only the holder of the stream's worker lease recovers it; the fence guards what the cycle writes. */
    private Optional<Outcome> notTheLeaseHolder(Cycle c) {
        c.fence = leases.hold(c.stream).orElse(null);
        return c.fence == null ? Optional.of(Outcome.NOT_OWNER) : NEXT;
    }

    /** A rebuild the worker started that FAILED fails the cycle (restarts back off too); one running here goes on. */
    private Optional<Outcome> rebuildUnderWay(Cycle c) {
        checkStartedRebuild(c.stream);
        return rebuilds.runsHere(c.stream) ? Optional.of(Outcome.REBUILDING) : NEXT;
    }

    /** Without a serving generation there is nothing to verify: a stream the product should serve is opened. */
    private Optional<Outcome> notServing(Cycle c) {
        c.serving = generations.serving(c.stream).orElse(null);
        if (c.serving != null) {
            return NEXT;
        }
        return Optional.of(subscriptions.matches(c.stream) ? open(c.stream) : Outcome.IDLE);
    }

    /**
     * A serving generation built by a newer projection version than this instance's (a rolling upgrade, this instance
     * the older one): it is left alone, neither caught up with this instance's older derivations nor rebuilt back to
     * its version (docs/runbooks/projection-upgrade.md); an instance of the newer version recovers it.
     */
    private Optional<Outcome> servedByNewerVersion(Cycle c) {
        int serving = c.serving.projectionVersion();
        if (!generations.version().isOlderThan(serving)) {
            return NEXT;
        }
        log.debug("{}: served by projection version {}, newer than this instance's {}: left to an instance of that "
                + "version", c.stream, serving, generations.version().current());
        return Optional.of(Outcome.IDLE);
    }

    /**
     * A serving generation built by an older projection version than this instance's: rebuilt in the background to
     * this version while it keeps serving, cut over when caught up ({@code PROJECTION_UPGRADE}). After the cutover the
     * serving version is this instance's, so it does not start again.
     */
    private Optional<Outcome> olderVersionServed(Cycle c) {
        int serving = c.serving.projectionVersion();
        if (serving >= generations.version().current()) {
            return NEXT;
        }
        return Optional.of(rebuild(c.stream, RebuildService.Reason.PROJECTION_UPGRADE, "the serving generation was "
                + "built by projection version " + serving + ", this instance's is " + generations.version().current()));
    }

    /**
     * The control store's current epoch, then the resolver's cursor (which the guards after this one compare with);
     * an epoch newer than the one served discards the generation's held events and rebuilds.
     */
    private Optional<Outcome> epochMoved(Cycle c) {
        long current = currentEpoch(c.stream);
        c.source = resolver.status(c.stream);
        long newest = Math.max(Math.max(current, c.source.epoch()), epochs.current(c.stream));
        if (newest <= c.serving.epoch()) {
            return NEXT;
        }
        discardHeld(c.serving, newest);
        return Optional.of(rebuild(c.stream,
                "the current epoch is " + newest + ", the product serves " + c.serving.epoch()));
    }

    /**
     * The control store's current epoch (through the resolver's epoch API), learnt; 0 while it cannot be read (a 503:
     * the epoch known and the resolver's open cursor's epoch then decide). A 410 fails the cycle.
     */
    private long currentEpoch(StreamId s) {
        long current = 0;
        try {
            current = resolver.currentEpoch(s);
            epochs.learn(s, current);
        } catch (ResolverClient.GoneException e) {
            throw e;
        } catch (RuntimeException e) {
            log.debug("{}: the current epoch could not be read: {}", s, e.toString());
        }
        return current;
    }

    /** A resolver behind the epoch served is not fixed by retrying blindly: BLOCKED. */
    private Optional<Outcome> epochBehind(Cycle c) {
        if (c.source.epoch() < c.serving.epoch()) {
            throw new BlockedException("EPOCH_BEHIND: the resolver is at epoch " + c.source.epoch()
                    + " but the product serves epoch " + c.serving.epoch());
        }
        return NEXT;
    }

    /** Applied beyond the resolver's cursor and not marked yet: reported, and a confirmed rollback diverged. */
    private Optional<Outcome> rolledBackBeneath(Cycle c) {
        if (c.serving.appliedPosition() <= c.source.cursor()
                || divergence.recorded(c.serving.generationId()).isPresent()) {
            return NEXT;
        }
        return aheadOfResolver(c.serving, c.source).map(why -> diverged(c.serving, why));
    }

    /** The serving generation's chain is not the resolver's (marked before, or found now): diverged. */
    private Optional<Outcome> chainDiverged(Cycle c) {
        return divergence.recorded(c.serving.generationId())
                .or(() -> divergence.check(c.serving))
                .map(why -> diverged(c.serving, why));
    }

    /** Verified through the resolver's cursor: CURRENT, and the boundary the next periodic cycle compares with. */
    private Optional<Outcome> alreadyCurrent(Cycle c) {
        if (c.serving.appliedPosition() < c.source.cursor()) {
            return NEXT;
        }
        status.ok(c.stream, c.source.epoch(), c.source.cursor(), true);
        periodicBoundary.put(c.stream, c.source.cursor());
        return Optional.of(Outcome.CURRENT);
    }

    /**
     * The relay is delivering: a periodic cycle catches up only what it has not delivered for a whole interval (the
     * boundary of the previous periodic cycle still not applied), and leaves the rest to it.
     */
    private Optional<Outcome> leftToTheRelay(Cycle c) {
        if (c.why != Trigger.PERIODIC) {
            return NEXT;
        }
        Long previous = periodicBoundary.put(c.stream, c.source.cursor());
        if (previous != null && c.serving.appliedPosition() < previous) {
            return NEXT;
        }
        status.ok(c.stream, c.source.epoch(), c.source.cursor(), false);
        return Optional.of(Outcome.IDLE);
    }

    /** Bounded catch-up pages to the resolver's cursor: CAUGHT_UP, or MORE for the next cycle. */
    private Outcome catchUpPages(Cycle c) {
        StreamId s = c.stream;
        RetentionView source = c.source;
        ServingCatchUp.Result r;
        try {
            r = catchUp.run(c.fence, source.epoch(), maxPagesPerCycle);
        } catch (ResolverClient.GoneException e) {
            return rebuild(s, "catch-up answered 410: " + e.getMessage());
        } catch (RestartRequired e) {
            return rebuild(s, "catch-up must start over: " + e.getMessage());
        } catch (ServingCatchUp.DivergedException e) {
            return diverged(c.serving, e.getMessage());
        }
        boolean verified = r.cursor() != null && r.cursor().appliedPosition() >= source.cursor();
        status.ok(s, source.epoch(), Math.max(source.cursor(), r.cursor() == null ? 0 : r.cursor().chainPosition()),
                verified);
        log.info("{}: recovery ({}) caught up {} event(s) in {} page(s) to {}", s, c.why, r.events(), r.pages(),
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
        return rebuild(s, RebuildService.Reason.RECOVERY, why);
    }

    /**
     * Starts a rebuild, unless the stream has a generation or an unfinished rebuild of a newer projection version than
     * this instance's: an older instance never rebuilds a stream back (docs/runbooks/projection-upgrade.md).
     */
    private Outcome rebuild(StreamId s, RebuildService.Reason reason, String why) {
        Optional<Integer> newer = rebuilds.newerVersion(s);
        if (newer.isPresent()) {
            log.info("{}: would rebuild ({}), but the stream has projection version {}, newer than this instance's "
                    + "{}: left to an instance of that version", s, why, newer.get(), generations.version().current());
            return Outcome.IDLE;
        }
        UUID id = rebuilds.start(s, reason);
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
        // a code and a sentence, never an exception's class name (the rebuild's rule: FailureReasons)
        return e instanceof BlockedException ? m : FailureReasons.describe(e);
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
        // what was scheduled dies with the executor: a stale entry would swallow the stream's triggers after a start
        pending.clear();
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
