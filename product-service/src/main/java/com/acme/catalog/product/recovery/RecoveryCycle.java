package com.acme.catalog.product.recovery;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.rebuild.RestartRequired;
import com.acme.catalog.product.recovery.RecoveryAction.Adopt;
import com.acme.catalog.product.recovery.RecoveryAction.Blocked;
import com.acme.catalog.product.recovery.RecoveryAction.CatchUp;
import com.acme.catalog.product.recovery.RecoveryAction.Current;
import com.acme.catalog.product.recovery.RecoveryAction.Diverged;
import com.acme.catalog.product.recovery.RecoveryAction.Idle;
import com.acme.catalog.product.recovery.RecoveryAction.LeftToTheRelay;
import com.acme.catalog.product.recovery.RecoveryAction.NotOwner;
import com.acme.catalog.product.recovery.RecoveryAction.Observe;
import com.acme.catalog.product.recovery.RecoveryAction.Open;
import com.acme.catalog.product.recovery.RecoveryAction.Rebuild;
import com.acme.catalog.product.recovery.RecoveryAction.RebuildUnderWay;
import com.acme.catalog.product.recovery.RecoveryWorker.BlockedException;
import com.acme.catalog.product.recovery.RecoveryWorker.Outcome;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;
import com.acme.catalog.product.recovery.StreamObserver.Observation;
import com.acme.catalog.product.resolver.ResolverClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * One recovery cycle of one stream: observe ({@link StreamObserver}), decide ({@link RecoveryDecision}, asking for
 * more observations as it needs them), act: open ({@link StreamOpener}), adopt a new epoch ({@link EpochAdoption}),
 * catch up ({@link ServingCatchUp}), mark a divergence ({@link ChainDivergence}) or start a rebuild
 * ({@link RecoveryRebuilds}). Runs on the caller's thread; {@link RecoveryWorker} schedules it.
 */
@Component
class RecoveryCycle {

    private static final Logger log = LoggerFactory.getLogger(RecoveryCycle.class);

    private final StreamObserver observer;
    private final StreamOpener opener;
    private final EpochAdoption adoption;
    private final ServingCatchUp catchUp;
    private final ChainDivergence divergence;
    private final RecoveryRebuilds rebuilds;
    private final RecoveryStatusRepository status;
    private final OldEpochAudit audit;
    private final int maxPagesPerCycle;

    RecoveryCycle(StreamObserver observer, StreamOpener opener, EpochAdoption adoption, ServingCatchUp catchUp,
            ChainDivergence divergence, RecoveryRebuilds rebuilds, RecoveryStatusRepository status,
            OldEpochAudit audit, RecoveryProperties properties) {
        this.observer = observer;
        this.opener = opener;
        this.adoption = adoption;
        this.catchUp = catchUp;
        this.divergence = divergence;
        this.rebuilds = rebuilds;
        this.status = status;
        this.audit = audit;
        this.maxPagesPerCycle = properties.maxPagesPerCycle();
    }

    Outcome run(StreamId s, Trigger why) {
        Observation o = observer.first(s, why);
        RecoveryAction action = RecoveryDecision.decide(o.state());
        while (action instanceof Observe more) {
            o = observer.observe(o, more.fact());
            action = RecoveryDecision.decide(o.state());
        }
        log.debug("{}: recovery ({}) decided {}", s, why, action);
        if (why == Trigger.PERIODIC && (action instanceof LeftToTheRelay || action instanceof CatchUp)) {
            observer.rememberBoundary(s, o.source().cursor());
        }
        return act(o, action);
    }

    private Outcome act(Observation o, RecoveryAction action) {
        StreamId s = o.stream();
        if (action instanceof NotOwner) {
            return Outcome.NOT_OWNER;
        }
        if (action instanceof RebuildUnderWay) {
            return Outcome.REBUILDING;
        }
        if (action instanceof Open) {
            return opener.open(s);
        }
        if (action instanceof Idle idle) {
            log.debug("{}: {}", s, idle.why());
            return Outcome.IDLE;
        }
        if (action instanceof Rebuild r) {
            if (r.discardHeld()) {
                discardHeld(o.serving(), o.state().source().newest());
            }
            return rebuilds.start(s, r.kind() == Rebuild.Kind.PROJECTION_UPGRADE
                    ? RebuildService.Reason.PROJECTION_UPGRADE : RebuildService.Reason.RECOVERY, r.why());
        }
        if (action instanceof Adopt a) {
            adoption.adopt(o.fence(), o.serving(), a);
            status.ok(s, a.epoch(), o.source().cursor(), o.source().cursor() == 0);
            return Outcome.ADOPTED;
        }
        if (action instanceof Blocked b) {
            throw new BlockedException(b.why());
        }
        if (action instanceof Diverged d) {
            return diverged(o.serving(), d.why());
        }
        if (action instanceof Current) {
            status.ok(s, o.source().epoch(), o.source().cursor(), true);
            observer.rememberBoundary(s, o.source().cursor());
            return Outcome.CURRENT;
        }
        if (action instanceof LeftToTheRelay) {
            status.ok(s, o.source().epoch(), o.source().cursor(), false);
            return Outcome.IDLE;
        }
        if (action instanceof CatchUp) {
            return catchUpPages(o);
        }
        throw new IllegalStateException("undecided: " + action);
    }

    /** Bounded catch-up pages to the resolver's cursor: CAUGHT_UP, or MORE for the next cycle. */
    private Outcome catchUpPages(Observation o) {
        StreamId s = o.stream();
        RetentionView source = o.source();
        ServingCatchUp.Result r;
        try {
            r = catchUp.run(o.fence(), source.epoch(), maxPagesPerCycle);
        } catch (ResolverClient.GoneException e) {
            return rebuilds.start(s, "catch-up answered 410: " + e.getMessage());
        } catch (RestartRequired e) {
            return rebuilds.start(s, "catch-up must start over: " + e.getMessage());
        } catch (ServingCatchUp.DivergedException e) {
            return diverged(o.serving(), e.getMessage());
        }
        boolean verified = r.cursor() != null && r.cursor().appliedPosition() >= source.cursor();
        status.ok(s, source.epoch(), Math.max(source.cursor(), r.cursor() == null ? 0 : r.cursor().chainPosition()),
                verified);
        log.info("{}: recovery ({}) caught up {} event(s) in {} page(s) to {}", s, o.why(), r.events(), r.pages(),
                r.cursor() == null ? "?" : r.cursor().appliedPosition());
        return r.reachedHead() ? Outcome.CAUGHT_UP : Outcome.MORE;
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
        return rebuilds.start(c.stream(), "the serving generation diverged from the resolver: " + why);
    }
}
