package com.acme.catalog.product.recovery;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.StreamSummary;
import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;
import com.acme.catalog.product.epoch.EpochProperties;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.epoch.StreamRollbacks;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The product's background check of every stream it serves or subscribes to, batched (docs/streams.md): every
 * {@code product.epochs.poll-interval} one listing of the resolver's streams ({@code GET /v1/streams}, a request per
 * {@value #PAGE} streams) and one read of the serving generations, compared in memory. Work follows only what moved:
 * <ol>
 *   <li>a newer epoch (the control store's, or the database's open one) than a serving generation's: the epoch is
 *       learnt, the generation is stale from then on (the inbox ignores its epoch's events, serving follows
 *       {@code product.epochs.stale-serving}), and the recovery worker rebuilds it;</li>
 *   <li>every {@code product.recovery.interval}: a generation whose applied position or chain digest is not the
 *       resolver's cursor and digest there, a stream the product should serve and has no generation for, and a
 *       served stream the resolver does not list get a periodic recovery cycle.</li>
 * </ol>
 * A stream to open whose outbox the resolver still holds from position 1 (pruned through 0) is left to the relay:
 * its first delivery opens it ({@code StreamAdmission}), so a product subscribing to ten thousand streams does not
 * also run ten thousand recovery cycles beside the deliveries that open them (they take minutes, not one interval).
 * It gets its cycle at the first pass after one where it was already unopened and no delivery opened a stream
 * meanwhile (the relay stalled, or does not deliver it); a pruned one gets it at once (no delivery can start it from
 * position 1).
 * A quiet stream that is current costs no request, no statement and no cycle of its own; the sweep's finding that
 * it is current is its verification ({@link SweepVerifications}, reported by completeness). A failed listing changes
 * nothing (the next sweep tries again).
 *
 * <p>Every listed stream's {@code rolledBack} goes to {@link StreamRollbacks} (public reads then refuse a generation
 * that holds the lost tail), and a stream newly found rolled back gets a cycle at once (the worker reports its
 * position ahead and rebuilds from the restored state). Because that must reach readers within seconds of the
 * resolver's detection, the rolled back streams alone are also listed every {@code product.rollbacks.poll}
 * ({@link #sweepRollbacks}: {@code GET /v1/streams?rolledBack=true}, usually an empty page). Turning the product's
 * maintenance off runs a sweep first ({@link EpochsBeforeResume}), so a rotation done during maintenance is known
 * before the first public read after it.
 */
@Component
class StreamSweep extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(StreamSweep.class);

    /** Streams per listing request. */
    static final int PAGE = 5000;

    private final GenerationRepository generations;
    private final ResolverClient resolver;
    private final StreamEpochs epochs;
    private final StreamRollbacks rollbacks;
    private final RecoveryWorker worker;
    private final SweepVerifications verifications;
    private final ProductStreamsProperties subscriptions;
    private final boolean enabled;
    private final Duration every;
    private final Duration rollbacksEvery;
    private final long positionsEveryNanos;
    /** The streams served at the last sweep (null before the first): the rollback poll lists their tenants too. */
    private volatile Set<StreamId> lastServed;
    private long lastPositionPass;
    private boolean positionsChecked;
    /** The unopened streams the last position pass left to their first delivery. */
    private Set<StreamId> leftToDelivery = Set.of();
    /** How many streams were served at the last position pass: more now means deliveries are opening streams. */
    private int servedAtLastPass;

    StreamSweep(GenerationRepository generations, ResolverClient resolver, StreamEpochs epochs,
            StreamRollbacks rollbacks, RecoveryWorker worker, SweepVerifications verifications,
            ProductStreamsProperties subscriptions, RecoveryProperties recovery, EpochProperties properties,
            RollbackProperties rollbackProperties) {
        super("stream-sweep", 1);
        this.generations = generations;
        this.resolver = resolver;
        this.epochs = epochs;
        this.rollbacks = rollbacks;
        this.worker = worker;
        this.verifications = verifications;
        this.subscriptions = subscriptions;
        this.enabled = recovery.enabled();
        this.every = properties.poll();
        this.rollbacksEvery = rollbackProperties.poll();
        this.positionsEveryNanos = recovery.interval().toNanos();
    }

    /**
     * {@link #sweep} every {@code product.epochs.poll-interval}, the first one interval after start; {@link #sweepRollbacks}
     * every {@code product.rollbacks.poll}, the first at start; both on one thread of their own.
     */
    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.every(every, every, this::sweep, e -> log.warn("the stream sweep failed; the next one retries", e));
        tasks.every(Duration.ZERO, rollbacksEvery, this::sweepRollbacks,
                e -> log.warn("the rolled back streams' poll failed; the next one retries", e));
    }

    /** Whether sweeps run at all ({@code product.recovery.enabled}). */
    boolean enabled() {
        return enabled;
    }

    /** One sweep; package-visible so tests can run it on their thread. @return the cycles it asked for */
    int sweep() {
        try {
            return sweepOrFail();
        } catch (UnlistedException e) {
            log.debug("the resolver's streams could not be listed: {}", e.getCause().toString());
            return 0;
        }
    }

    /**
     * One sweep that fails when the resolver's streams cannot be listed (turning maintenance off needs to know).
     *
     * @return the cycles it asked for
     * @throws UnlistedException when the listing failed (nothing was learnt)
     */
    synchronized int sweepOrFail() {
        if (!enabled) {
            return 0;
        }
        long now = System.nanoTime();
        boolean positions = !positionsChecked || now - lastPositionPass >= positionsEveryNanos;
        Map<StreamId, GenerationCursor> serving = new HashMap<>();
        for (GenerationCursor c : generations.servingCursors()) {
            serving.put(c.stream(), c);
        }
        lastServed = Set.copyOf(serving.keySet());
        List<StreamSummary> listed;
        try {
            listed = list(serving.keySet(), false);
        } catch (RuntimeException e) {
            throw new UnlistedException(e);
        }
        int asked = 0;
        Instant listedAt = Instant.now();
        Predicate<StreamId> subscribed = subscriptions.matcher(); // parsed once a sweep, not once a stream
        Set<StreamId> seen = new LinkedHashSet<>();
        Set<StreamId> awaitingDelivery = new LinkedHashSet<>();
        boolean deliveriesOpening = positionsChecked && serving.size() > servedAtLastPass;
        for (StreamSummary st : listed) {
            StreamId s = new StreamId(st.tenant(), st.catalog());
            seen.add(s);
            GenerationCursor c = serving.get(s);
            if (c == null) {
                rollbacks.observe(s, st); // nothing served to refuse; recorded and cleared all the same
                if (positions && subscribed.test(s)) {
                    if (st.prunedThrough() == 0 && st.cursor() > 0
                            && (!leftToDelivery.contains(s) || deliveriesOpening)) {
                        awaitingDelivery.add(s); // its first delivery opens it; a later pass checks
                    } else {
                        worker.trigger(s, RecoveryWorker.Trigger.PERIODIC); // opens it (docs/streams.md)
                        asked++;
                    }
                }
                continue;
            }
            long current = Math.max(st.epoch(), st.currentEpoch() == null ? 0 : st.currentEpoch());
            boolean raised = epochs.learn(s, current);
            boolean rolledBack = rollbacks.observe(s, st); // after the epoch: a rotation clears it in the new epoch
            if (epochs.current(s) > c.epoch()) {
                if (raised) {
                    worker.epochChanged(s);
                } else {
                    worker.trigger(s, RecoveryWorker.Trigger.EPOCH_MISMATCH);
                }
                asked++;
            } else if ((positions || rolledBack) && !sameHead(c, st)) {
                worker.trigger(s, RecoveryWorker.Trigger.PERIODIC);
                asked++;
            } else if (positions) {
                verifications.record(s, c.epoch(), c.appliedPosition(), listedAt);
            }
        }
        if (positions) {
            for (StreamId s : serving.keySet()) {
                if (!seen.contains(s)) {
                    verifications.forget(s);
                    worker.trigger(s, RecoveryWorker.Trigger.PERIODIC); // the cycle finds out why it is not listed
                    asked++;
                }
            }
            leftToDelivery = awaitingDelivery;
            servedAtLastPass = serving.size();
            lastPositionPass = now;
            positionsChecked = true;
        }
        log.debug("stream sweep: {} listed, {} served, {} cycle(s) asked for{}", listed.size(), serving.size(), asked,
                positions ? " (positions checked)" : "");
        return asked;
    }

    /**
     * Lists only the streams the resolver reports rolled back and records them ({@link StreamRollbacks}), asking a
     * cycle for each newly found one the product serves or subscribes to. Cheap (usually an empty page), so it runs
     * more often than the sweep: public readers stop seeing a lost tail within {@code product.rollbacks.poll} of the
     * resolver's detection. A failed listing changes nothing.
     *
     * @return how many rollbacks it newly recorded
     */
    synchronized int sweepRollbacks() {
        if (!enabled) {
            return 0;
        }
        Set<StreamId> served = lastServed;
        if (served == null) { // no sweep yet (the first runs an interval after start): read what is served
            served = new LinkedHashSet<>();
            for (GenerationCursor c : generations.servingCursors()) {
                served.add(c.stream());
            }
        }
        List<StreamSummary> listed;
        try {
            listed = list(served, true);
        } catch (RuntimeException e) {
            log.debug("the resolver's rolled back streams could not be listed: {}", e.toString());
            return 0;
        }
        int recorded = 0;
        Predicate<StreamId> subscribed = listed.isEmpty() ? s -> false : subscriptions.matcher();
        for (StreamSummary st : listed) {
            StreamId s = new StreamId(st.tenant(), st.catalog());
            if (rollbacks.observe(s, st)) {
                recorded++;
                if (served.contains(s) || subscribed.test(s)) {
                    worker.trigger(s, RecoveryWorker.Trigger.PERIODIC); // reports its position ahead, rebuilds
                }
            }
        }
        return recorded;
    }

    /** The generation has applied the resolver's head, and its chain there is the resolver's. */
    private static boolean sameHead(GenerationCursor c, StreamSummary st) {
        return c.epoch() == st.epoch() && c.appliedPosition() == st.cursor() && c.chainPosition() == st.cursor()
                && c.chainDigest().equals(st.chainDigest());
    }

    /**
     * Every stream when a subscription covers every tenant; otherwise the streams of the tenants the product serves
     * or subscribes to, a listing per tenant.
     */
    private List<StreamSummary> list(Set<StreamId> served, boolean rolledBackOnly) {
        Set<String> tenants = new LinkedHashSet<>(subscriptions.tenantPatterns());
        if (tenants.contains(ProductStreamsProperties.ANY)) {
            return resolver.listStreams(null, PAGE, rolledBackOnly);
        }
        subscriptions.list().forEach(s -> tenants.add(s.tenant()));
        served.forEach(s -> tenants.add(s.tenant()));
        List<StreamSummary> out = new ArrayList<>();
        for (String tenant : tenants) {
            out.addAll(resolver.listStreams(tenant, PAGE, rolledBackOnly));
        }
        return out;
    }

    /** The resolver's streams could not be listed. */
    static final class UnlistedException extends RuntimeException {

        UnlistedException(RuntimeException cause) {
            super("the resolver's streams could not be listed: " + cause.getMessage(), cause);
        }
    }
}
