package com.acme.catalog.product.recovery;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.EpochIssue;
import com.acme.catalog.contracts.epoch.EpochStatus;
import com.acme.catalog.contracts.epoch.StartsFrom;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.recovery.RecoveryAction.Fact;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;
import com.acme.catalog.product.recovery.StreamState.Check;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Gathers what {@link RecoveryDecision} decides on, a stage at a time ({@link Fact}): the lease, a rebuild under
 * way and the serving generation first ({@link #first}); the resolver's epochs, cursor and where its current epoch
 * starts, when the decision asks ({@link #observe}). It learns the control store's current epoch on the way
 * ({@link StreamEpochs#learn}), and remembers the resolver's cursor of each stream's previous periodic cycle.
 */
@Component
class StreamObserver {

    private static final Logger log = LoggerFactory.getLogger(StreamObserver.class);

    /** What a cycle observed so far: the values its actions need, and the state the decision reads. */
    record Observation(StreamId stream, Trigger why, WorkerFence fence, GenerationCursor serving,
            RetentionView source, StreamState state) {

        Observation with(RetentionView v, StreamState s) {
            return new Observation(stream, why, fence, serving, v, s);
        }
    }

    private final WorkerLeases leases;
    private final RecoveryRebuilds rebuilds;
    private final GenerationRepository generations;
    private final ResolverClient resolver;
    private final StreamEpochs epochs;
    private final ChainDivergence divergence;
    private final ProductStreamsProperties subscriptions;
    /** The resolver's cursor at the stream's previous periodic cycle. */
    private final Map<StreamId, Long> periodicBoundary = new ConcurrentHashMap<>();

    StreamObserver(WorkerLeases leases, RecoveryRebuilds rebuilds, GenerationRepository generations,
            ResolverClient resolver, StreamEpochs epochs, ChainDivergence divergence,
            ProductStreamsProperties subscriptions) {
        this.leases = leases;
        this.rebuilds = rebuilds;
        this.generations = generations;
        this.resolver = resolver;
        this.epochs = epochs;
        this.divergence = divergence;
        this.subscriptions = subscriptions;
    }

    /** The lease, then (only if held) a rebuild under way, then (only if none) the serving generation. */
    Observation first(StreamId s, Trigger why) {
        boolean periodic = why == Trigger.PERIODIC;
        int version = generations.version().current();
        WorkerFence fence = leases.hold(s).orElse(null);
        if (fence == null) {
            return new Observation(s, why, null, null, null,
                    new StreamState(periodic, false, false, null, false, version, null, null, null));
        }
        if (rebuilds.underWay(s)) {
            return new Observation(s, why, fence, null, null,
                    new StreamState(periodic, true, true, null, false, version, null, null, null));
        }
        GenerationCursor g = generations.serving(s).orElse(null);
        StreamState.Serving serving = g == null ? null : new StreamState.Serving(g.epoch(), g.appliedPosition(),
                g.chainPosition(), g.chainDigest(), g.projectionVersion());
        return new Observation(s, why, fence, g, null, new StreamState(periodic, true, false, serving,
                subscriptions.matches(s), version, null, null, null));
    }

    /** Observes {@code fact} for a stream with a serving generation. */
    Observation observe(Observation o, Fact fact) {
        StreamState st = o.state();
        return switch (fact) {
            case SOURCE -> source(o);
            case AHEAD_REPORT -> o.with(o.source(), st.withAhead(aheadOfResolver(o.serving(), o.source())));
            case CHAIN_CHECK -> o.with(o.source(), st.withChain(
                    new Check(divergence.check(o.serving()).orElse(null))));
        };
    }

    /** The resolver's cursor of this periodic cycle, which the next one compares with. */
    void rememberBoundary(StreamId s, long cursor) {
        periodicBoundary.put(s, cursor);
    }

    /**
     * The control store's current epoch (learnt) and where it starts, then the resolver's cursor, the epoch the
     * product learnt and the divergence mark. A 410 fails the cycle; an epoch API that does not answer otherwise
     * counts as epoch 0 of unknown start (the epoch known and the resolver's open cursor's epoch then decide).
     */
    private Observation source(Observation o) {
        StreamId s = o.stream();
        long current = 0;
        StartsFrom startsFrom = null;
        try {
            EpochStatus status = resolver.epochStatus(s);
            current = status.epoch();
            startsFrom = status.history().stream().filter(i -> i.epoch() == status.epoch()).findFirst()
                    .map(EpochIssue::startsFrom).orElse(null);
            epochs.learn(s, current);
        } catch (ResolverClient.GoneException e) {
            throw e;
        } catch (RuntimeException e) {
            log.debug("{}: the current epoch could not be read: {}", s, e.toString());
        }
        RetentionView v = resolver.status(s);
        StreamState.Source source = new StreamState.Source(current, epochs.current(s), v.epoch(), v.cursor(),
                v.prunedThrough(), startsFrom, divergence.recorded(o.serving().generationId()).orElse(null),
                periodicBoundary.get(s));
        return o.with(v, o.state().withSource(source));
    }

    /**
     * The product applied a position the resolver's cursor (same epoch) is behind: it holds what the resolver's
     * database no longer has (a restore) or never had (a forged delivery). The product reports that position, the
     * consumer's rollback signal (docs/epochs.md "Rollback detection"): a resolver that answers
     * {@code HISTORY_ROLLED_BACK} refuses writes and the relay until an operator rotates the epoch.
     *
     * @return failed with the divergence reason when the resolver confirmed a rollback (the generation is then marked
     *         and replaced by a rebuild from the resolver's state; the rotation then adopts it in place or rebuilds);
     *         passed otherwise (the chain comparison decides)
     */
    private Check aheadOfResolver(GenerationCursor c, RetentionView source) {
        Optional<ResolverClient.Refusal> refused;
        try {
            refused = resolver.reportAhead(c.stream(), c.epoch(), c.appliedPosition());
        } catch (RuntimeException e) {
            log.warn("{}: could not report position {} ahead of the resolver's cursor {}: {}", c.stream(),
                    c.appliedPosition(), source.cursor(), e.toString());
            return Check.PASSED;
        }
        if (refused.isPresent() && refused.get().is(ProblemCode.HISTORY_ROLLED_BACK)) {
            return new Check("the product applied position " + c.appliedPosition() + " of epoch " + c.epoch()
                    + ", which the resolver never committed (its cursor is at " + source.cursor() + "); reported, the "
                    + "resolver confirmed HISTORY_ROLLED_BACK: its history was rolled back (a restore) and it refuses "
                    + "writes until an operator rotates the epoch (docs/runbooks/restore.md)");
        }
        return Check.PASSED;
    }
}
