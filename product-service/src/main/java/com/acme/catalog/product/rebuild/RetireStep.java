package com.acme.catalog.product.rebuild;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.resolver.ResolverClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * docs/design.md step 7, its end: after the cutover committed, retires the old generation, registers the consumer at
 * the target H and reports H (the live cursor moves on from there), then releases the lease. Also undoes what an
 * attempt that did not cut over left (its shadow, its lease) and what a stopped worker left (its BUILDING
 * generations, its leases).
 */
@Component
class RetireStep {

    private static final Logger log = LoggerFactory.getLogger(RetireStep.class);

    private final GenerationRetirer retirer;
    private final ResolverClient resolver;
    private final ProgressReporter progress;
    private final RebuildRepository rebuilds;

    RetireStep(GenerationRetirer retirer, ResolverClient resolver, ProgressReporter progress,
            RebuildRepository rebuilds) {
        this.retirer = retirer;
        this.resolver = resolver;
        this.progress = progress;
        this.rebuilds = rebuilds;
    }

    /** Finishes an attempt whose cutover committed; {@code old}: the generation that served before it. */
    void retire(Attempt a, Optional<Long> old) {
        old.ifPresent(retirer::retire);
        rebuilds.target(a.id, a.target);
        resolver.registerConsumer(a.stream, a.epoch);
        resolver.progress(a.stream, a.epoch, a.target);
        progress.restart(a.stream, a.epoch, a.target);
        a.stopRenewing();
        resolver.releaseLease(a.leaseId);
        a.leaseId = null;
    }

    /** Undoes what the attempt left: the shadow generation (unless it serves) and the lease. Never throws. */
    void abandon(Attempt a) {
        a.stopRenewing();
        if (a.generation != null && !a.cutOver) {
            try {
                retirer.retire(a.generation);
            } catch (RuntimeException e) {
                log.warn("{}: could not retire shadow generation {}: {}", a.stream, a.generation, e.getMessage());
            }
        }
        if (a.leaseId != null) {
            try {
                resolver.releaseLease(a.leaseId);
            } catch (RuntimeException e) {
                log.warn("{}: could not release lease {}: {}", a.stream, a.leaseId, e.getMessage());
            }
        }
    }

    /** Retires the stream's BUILDING generations except {@code keep}; @return those retired */
    List<Long> retireBuilding(StreamId stream, Set<Long> keep) {
        return retirer.retireBuilding(stream, keep);
    }

    /** Releases the resolver lease an unfinished rebuild of a stopped worker held, if any. Never throws. */
    void releaseLeaseOf(StreamId stream, RebuildRepository.Unfinished u) {
        if (u.leaseId() == null) {
            return;
        }
        try {
            resolver.releaseLease(u.leaseId());
        } catch (RuntimeException e) {
            log.warn("{}: could not release lease {} of rebuild {}: {}", stream, u.leaseId(), u.rebuildId(),
                    e.toString());
        }
    }
}
