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
import com.acme.catalog.product.epoch.EpochProperties;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
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
 * A stream to open whose outbox the resolver still holds from position 1 (pruned through 0) is left to the relay for
 * one interval: its first delivery opens it ({@code StreamAdmission}), so a product subscribing to ten thousand
 * streams does not also run ten thousand recovery cycles beside the deliveries that open them. Still unopened at the
 * next pass, it gets its cycle; a pruned one gets it at once (no delivery can start it from position 1).
 * A quiet stream that is current costs no request, no statement and no cycle of its own; the sweep's finding that
 * it is current is its verification ({@link SweepVerifications}, reported by completeness). A failed listing changes
 * nothing (the next sweep tries again).
 */
@Component
class StreamSweep implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(StreamSweep.class);

    /** Streams per listing request. */
    static final int PAGE = 5000;

    private final GenerationRepository generations;
    private final ResolverClient resolver;
    private final StreamEpochs epochs;
    private final RecoveryWorker worker;
    private final SweepVerifications verifications;
    private final ProductStreamsProperties subscriptions;
    private final boolean enabled;
    private final Duration every;
    private final long positionsEveryNanos;
    private long lastPositionPass;
    private boolean positionsChecked;
    /** The unopened streams the last position pass left to their first delivery. */
    private Set<StreamId> leftToDelivery = Set.of();

    StreamSweep(GenerationRepository generations, ResolverClient resolver, StreamEpochs epochs, RecoveryWorker worker,
            SweepVerifications verifications, ProductStreamsProperties subscriptions, RecoveryProperties recovery,
            EpochProperties properties) {
        this.generations = generations;
        this.resolver = resolver;
        this.epochs = epochs;
        this.worker = worker;
        this.verifications = verifications;
        this.subscriptions = subscriptions;
        this.enabled = recovery.enabled();
        this.every = properties.poll();
        this.positionsEveryNanos = recovery.interval().toNanos();
    }

    /** {@link #sweep} every {@code product.epochs.poll-interval}, the first one interval after start. */
    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::sweep, every, every));
    }

    /** One sweep; package-visible so tests can run it on their thread. @return the cycles it asked for */
    synchronized int sweep() {
        if (!enabled) {
            return 0;
        }
        long now = System.nanoTime();
        boolean positions = !positionsChecked || now - lastPositionPass >= positionsEveryNanos;
        Map<StreamId, GenerationCursor> serving = new HashMap<>();
        for (GenerationCursor c : generations.servingCursors()) {
            serving.put(c.stream(), c);
        }
        List<StreamSummary> listed;
        try {
            listed = list(serving.keySet());
        } catch (RuntimeException e) {
            log.debug("the resolver's streams could not be listed: {}", e.toString());
            return 0;
        }
        int asked = 0;
        Instant listedAt = Instant.now();
        Predicate<StreamId> subscribed = subscriptions.matcher(); // parsed once a sweep, not once a stream
        Set<StreamId> seen = new LinkedHashSet<>();
        Set<StreamId> awaitingDelivery = new LinkedHashSet<>();
        for (StreamSummary st : listed) {
            StreamId s = new StreamId(st.tenant(), st.catalog());
            seen.add(s);
            GenerationCursor c = serving.get(s);
            if (c == null) {
                if (positions && subscribed.test(s)) {
                    if (st.prunedThrough() == 0 && st.cursor() > 0 && !leftToDelivery.contains(s)) {
                        awaitingDelivery.add(s); // its first delivery opens it; the next pass checks
                    } else {
                        worker.trigger(s, RecoveryWorker.Trigger.PERIODIC); // opens it (docs/streams.md)
                        asked++;
                    }
                }
                continue;
            }
            long current = Math.max(st.epoch(), st.currentEpoch() == null ? 0 : st.currentEpoch());
            boolean raised = epochs.learn(s, current);
            if (epochs.current(s) > c.epoch()) {
                if (raised) {
                    worker.epochChanged(s);
                } else {
                    worker.trigger(s, RecoveryWorker.Trigger.EPOCH_MISMATCH);
                }
                asked++;
            } else if (positions && !sameHead(c, st)) {
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
            lastPositionPass = now;
            positionsChecked = true;
        }
        log.debug("stream sweep: {} listed, {} served, {} cycle(s) asked for{}", listed.size(), serving.size(), asked,
                positions ? " (positions checked)" : "");
        return asked;
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
    private List<StreamSummary> list(Set<StreamId> served) {
        Set<String> tenants = new LinkedHashSet<>(subscriptions.tenantPatterns());
        if (tenants.contains(ProductStreamsProperties.ANY)) {
            return resolver.listStreams(null, PAGE);
        }
        subscriptions.list().forEach(s -> tenants.add(s.tenant()));
        served.forEach(s -> tenants.add(s.tenant()));
        List<StreamSummary> out = new ArrayList<>();
        for (String tenant : tenants) {
            out.addAll(resolver.listStreams(tenant, PAGE));
        }
        return out;
    }
}
