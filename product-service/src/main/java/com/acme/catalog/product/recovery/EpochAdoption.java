package com.acme.catalog.product.recovery;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.recovery.RecoveryAction.Adopt;
import com.acme.catalog.product.resolver.ResolverClient;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Adopts a new epoch in place (docs/epochs.md "The product"): the serving generation holds exactly the state epoch
 * N+1 starts over ({@link RecoveryDecision#adoption}), so instead of a rebuild from an export its cursor moves to
 * position 0 of N+1 with digest 64 zeros, where the resolver's new cursor opened (the new epoch's chain starts over;
 * its positions and digests are never compared with N's). The consumer is registered in N+1 first (so retention
 * keeps N+1 from position 1 for it), then one fenced transaction under the serving lock, which re-checks that the
 * cursor is still the one the decision saw, moves the held events of N to the audit, drops N's inbox rows (their
 * positions are N's, and N+1 counts from 1 again) and moves the cursor. Counted in
 * {@code product_epoch_adoptions_total} and logged per stream.
 */
@Component
class EpochAdoption {

    private static final Logger log = LoggerFactory.getLogger(EpochAdoption.class);
    private static final String SQL_DROP_INBOX = """
            DELETE FROM inbox WHERE generation_id = ?
            """;
    private static final String SQL_ADOPT = """
            UPDATE generation
               SET epoch = ?, start_position = 0, start_digest = ?, chain_position = 0, chain_digest = ?,
                   applied_position = 0, highest_seen_position = 0, updated_at = now()
             WHERE generation_id = ? AND epoch = ? AND applied_position = ? AND chain_position = ?
               AND chain_digest = ? AND diverged_at IS NULL
            """;

    private final ResolverClient resolver;
    private final GenerationRepository generations;
    private final OldEpochAudit audit;
    private final WorkerLeases leases;
    private final ProgressReporter progress;
    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final Counter adoptions;

    EpochAdoption(ResolverClient resolver, GenerationRepository generations, OldEpochAudit audit, WorkerLeases leases,
            ProgressReporter progress, JdbcClient jdbc, TransactionTemplate tx, MeterRegistry meters) {
        this.resolver = resolver;
        this.generations = generations;
        this.audit = audit;
        this.leases = leases;
        this.progress = progress;
        this.jdbc = jdbc;
        this.tx = tx;
        this.adoptions = Counter.builder("product.epoch.adoptions")
                .description("serving generations moved to a new epoch in place, without a rebuild")
                .register(meters);
    }

    /**
     * @throws ServingCatchUp.SupersededException when the serving cursor moved since it was observed (the cycle
     *         starts over and decides again)
     */
    void adopt(WorkerFence fence, GenerationCursor seen, Adopt a) {
        StreamId s = fence.stream();
        resolver.registerConsumer(s, a.epoch());
        int discarded = tx.execute(t -> {
            GenerationCursor locked = generations.lockServing(s).orElse(null);
            if (!seen.equals(locked)) {
                throw new ServingCatchUp.SupersededException(s + ": the serving cursor moved while epoch "
                        + a.epoch() + " was being adopted");
            }
            int n = audit.discardHeld(seen.generationId(), s, seen.epoch(), a.epoch());
            jdbc.sql(SQL_DROP_INBOX).params(seen.generationId()).update();
            int moved = jdbc.sql(SQL_ADOPT).params(a.epoch(), ChainDigest.ZERO, ChainDigest.ZERO, seen.generationId(),
                    seen.epoch(), seen.appliedPosition(), seen.chainPosition(), seen.chainDigest()).update();
            if (moved != 1) {
                throw new ServingCatchUp.SupersededException(s + ": generation " + seen.generationId()
                        + " changed while epoch " + a.epoch() + " was being adopted");
            }
            leases.requireHeld(fence);
            return n;
        });
        audit.count(s, OldEpochAudit.Source.PARKED, discarded);
        progress.restart(s, a.epoch(), 0);
        adoptions.increment();
        log.info("{}: adopted epoch {} in place, without a rebuild: generation {} applied position {} of epoch {} "
                + "with chain digest {}, exactly where epoch {} starts; now at position 0 of epoch {}", s, a.epoch(),
                seen.generationId(), seen.appliedPosition(), seen.epoch(), seen.chainDigest(), a.epoch(), a.epoch());
    }
}
