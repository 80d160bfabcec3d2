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

    /** Finishes an attempt whose cutover committed: retires the generation it replaced. */
    void retire(CutOver c) {
        Pinned p = c.caughtUp().shadow().pinned();
        c.replaced().ifPresent(retirer::retire);
        rebuilds.target(p.id(), c.target());
        resolver.registerConsumer(p.stream(), p.epoch());
        resolver.progress(p.stream(), p.epoch(), c.target());
        progress.restart(p.stream(), p.epoch(), c.target());
        p.keeper().close();
        resolver.releaseLease(p.leaseId());
    }

    /**
     * Undoes what a failed attempt left: its shadow generation (unless the attempt cut over to it) and its lease.
     * Never throws.
     *
     * @param reached the attempt's last result
     * @param shadow  the shadow generation the attempt created, if any (known before its load returned)
     */
    void abandon(Reached reached, Optional<Long> shadow) {
        StreamId stream = reached.started().stream();
        reached.lease().ifPresent(p -> p.keeper().close());
        if (!reached.cutOver()) {
            shadow.ifPresent(g -> {
                try {
                    retirer.retire(g);
                } catch (RuntimeException e) {
                    log.warn("{}: could not retire shadow generation {}: {}", stream, g, e.getMessage());
                }
            });
        }
        reached.lease().ifPresent(p -> {
            try {
                resolver.releaseLease(p.leaseId());
            } catch (RuntimeException e) {
                log.warn("{}: could not release lease {}: {}", stream, p.leaseId(), e.getMessage());
            }
        });
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
