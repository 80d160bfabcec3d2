package com.acme.catalog.product.recovery;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.platform.retry.Backoff;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.rebuild.FailureReasons;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The recovery worker's scheduler (docs/rebuild.md "Recovery worker"): it only decides when a stream's cycle runs.
 * Triggers: startup (listed streams, unfinished rebuilds, older projection versions), a live gap or chain break,
 * deliveries resuming after a failure, a new epoch, and the {@link StreamSweep}, which asks only for streams whose
 * epoch, head or digest moved; requests for one stream coalesce ({@link Due#coalesce}). A cycle that used its page
 * budget, or adopted a new epoch, continues at once; failures back off exponentially to a cap and show as RETRYING
 * (BLOCKED for a condition retrying will not fix) in {@code recovery_status}. What a cycle does is
 * {@link RecoveryCycle}'s: observed by {@link StreamObserver}, decided by {@link RecoveryDecision}. One thread;
 * nothing here is part of readiness.
 */
@Component
public class RecoveryWorker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RecoveryWorker.class);

    /** Why a cycle runs. */
    public enum Trigger { STARTUP, PERIODIC, GAP, CHAIN_BREAK, DELIVERIES_RESUMED, EPOCH_MISMATCH, RETRY, CONTINUE }

    /** How a cycle ended; after MORE and ADOPTED (a new epoch adopted in place) a cycle continues at once. */
    enum Outcome { NOT_OWNER, IDLE, CURRENT, CAUGHT_UP, MORE, REBUILDING, ADOPTED }

    /** A condition retrying blindly will not fix; shown as BLOCKED, still retried at the backoff's pace. */
    static final class BlockedException extends RuntimeException {
        BlockedException(String message) {
            super(message);
        }
    }

    private final RebuildService rebuilds;
    private final GenerationRepository generations;
    private final RecoveryCycle cycle;
    private final RecoveryStatusRepository status;
    private final MeterRegistry meters;
    private final Clock clock;
    private final boolean enabled;
    private final long intervalMs;
    private final long gapGraceMs;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final List<StreamId> configured;
    /** The cycle asked for and not run yet, per stream, with why (a stronger reason replaces a periodic one). */
    private final Map<StreamId, Pending> pending = new ConcurrentHashMap<>();
    private final Map<StreamId, Backoff> backoffs = new ConcurrentHashMap<>();
    private ScheduledExecutorService thread;
    private volatile boolean running;

    RecoveryWorker(RebuildService rebuilds, GenerationRepository generations, RecoveryCycle cycle,
            RecoveryStatusRepository status, MeterRegistry meters, Optional<Clock> clock,
            RecoveryProperties properties, ProductStreamsProperties streams) {
        this.rebuilds = rebuilds;
        this.generations = generations;
        this.cycle = cycle;
        this.status = status;
        this.meters = meters;
        this.clock = clock.orElse(Clock.systemUTC());
        this.enabled = properties.enabled();
        this.intervalMs = properties.interval().toMillis();
        this.gapGraceMs = properties.gapGrace().toMillis();
        this.initialBackoff = properties.initialBackoff();
        this.maxBackoff = properties.maxBackoff();
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
            if (outcome == Outcome.MORE || outcome == Outcome.ADOPTED) {
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

    /** One cycle ({@link RecoveryCycle}). Package-visible so tests can run it on their thread. */
    Outcome cycle(StreamId s, Trigger why) {
        return cycle.run(s, why);
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
