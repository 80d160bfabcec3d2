package com.acme.catalog.product.rebuild;

import java.util.Optional;

import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.lease.WorkerLeases;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 7, its cutover: under the stream's serving lock (the live applier waits) applies what the
 * resolver committed since the last catch-up page ({@link TailApplier}), requires every position up to the head H
 * processed and none parked, and points the stream at the shadow, in one transaction committed only under the worker
 * fence. The HTTP reads inside the transaction keep the live pause short: only the tail since the last catch-up page is
 * fetched.
 */
@Component
class CutoverStep {

    private final TailApplier tail;
    private final GenerationRepository generations;
    private final CutoverRepository cutovers;
    private final StreamEpochs epochs;
    private final WorkerLeases leases;
    private final RebuildProbe probe;
    private final TransactionTemplate tx;

    CutoverStep(TailApplier tail, GenerationRepository generations, CutoverRepository cutovers, StreamEpochs epochs,
            WorkerLeases leases, RebuildProbe probe, PlatformTransactionManager tm) {
        this.tail = tail;
        this.generations = generations;
        this.cutovers = cutovers;
        this.epochs = epochs;
        this.leases = leases;
        this.probe = probe;
        this.tx = new TransactionTemplate(tm);
    }

    /** @return the cutover's target and the generation that served before, if any: {@link RetireStep} retires it */
    CutOver cutover(CaughtUp caughtUp) {
        Started a = caughtUp.started();
        long epoch = caughtUp.shadow().pinned().epoch();
        long generation = caughtUp.generation();
        return tx.execute(s -> {
            Optional<GenerationCursor> serving = generations.lockServing(a.stream(), true);
            int servingVersion = serving.map(GenerationCursor::projectionVersion).orElse(0);
            if (servingVersion > a.projectionVersion() && !a.anyVersion()) {
                // the serving generation was replaced by a newer version's while this attempt ran: never back
                throw new PermanentFailure("PROJECTION_VERSION_OLDER", a.stream() + " is served by projection "
                        + "version " + servingVersion + ", newer than this rebuild's " + a.projectionVersion()
                        + "; an older instance never cuts a stream over back to its version");
            }
            GenerationCursor shadow = tail.applyToHead(caughtUp, generations.lockGeneration(generation)
                    .orElseThrow());
            long h = shadow.chainPosition();
            long current = epochs.currentInDatabase(a.stream());
            if (current > epoch) {
                throw new RestartRequired(RestartRequired.Reason.EPOCH_CHANGED_BEFORE_CUTOVER, "the current epoch is "
                        + current + ", this rebuild is of epoch " + epoch);
            }
            long parked = cutovers.parkedAtOrBelow(generation, h);
            if (parked > 0 || shadow.appliedPosition() != h) {
                throw new IllegalStateException(parked + " event(s) at or below the target " + h
                        + " are parked in the shadow generation (processed through " + shadow.appliedPosition()
                        + "): its state is not the resolver's; see docs/rebuild.md");
            }
            // ahead of the resolver is a rollback signal, unless the serving copy is known to have diverged
            // (it may hold a forged event the resolver never committed): then the rebuild is the repair
            if (serving.isPresent() && serving.get().epoch() == epoch && serving.get().appliedPosition() > h
                    && !cutovers.diverged(serving.get().generationId())) {
                throw new IllegalStateException("the serving generation is at " + serving.get().appliedPosition()
                        + ", past the resolver's head " + h);
            }
            probe.reached(RebuildPhase.CUTTING_OVER);
            cutovers.pointServingAt(a.stream(), generation);
            leases.requireHeld(a.fence());
            return new CutOver(caughtUp, h, serving.map(GenerationCursor::generationId));
        });
    }
}
