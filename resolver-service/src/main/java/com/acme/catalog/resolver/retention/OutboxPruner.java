package com.acme.catalog.resolver.retention;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.RetainedOutboxRepository.Scan;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamEpoch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Deletes the prunable prefix of each (stream, epoch) outbox: published events older than min-age, without a
 * gap, through min(every registered consumer's durable position, every live lease's pin). Each batch is its own
 * short transaction under the retention lock and re-reads every bound, so a lease or consumer registered between
 * two batches is respected. The cursor row writers lock is never read for update or written.
 */
@Component
class OutboxPruner {

    private static final Logger log = LoggerFactory.getLogger(OutboxPruner.class);

    private final TransactionTemplate tx;
    private final RetentionRepository retention;
    private final ConsumerRepository consumers;
    private final LeaseRepository leases;
    private final RetainedOutboxRepository outbox;
    private final RetentionMetrics metrics;
    private final RetentionProperties properties;

    OutboxPruner(TransactionTemplate tx, RetentionRepository retention, ConsumerRepository consumers,
            LeaseRepository leases, RetainedOutboxRepository outbox, RetentionMetrics metrics,
            RetentionProperties properties) {
        this.tx = tx;
        this.retention = retention;
        this.consumers = consumers;
        this.leases = leases;
        this.outbox = outbox;
        this.metrics = metrics;
        this.properties = properties;
    }

    /**
     * The periodic cycle: prunes the (stream, epoch) pairs that one statement finds prunable now
     * ({@link RetentionRepository#pruneCandidates}), so the cycle's cost follows what there is to prune, not the
     * number of streams.
     */
    List<PruneOutcome> pruneCandidates() {
        List<PruneOutcome> outcomes = new ArrayList<>();
        for (StreamEpoch se : retention.pruneCandidates(properties.minAge())) {
            outcomes.add(prune(se.stream(), se.epoch()));
        }
        return outcomes;
    }

    /** Prunes every epoch of the streams selected ({@code null} selects all), stream by stream (an operator's ask). */
    List<PruneOutcome> pruneAll(String tenant, String catalog) {
        List<PruneOutcome> outcomes = new ArrayList<>();
        for (StreamEpoch se : retention.streamEpochs(tenant, catalog)) {
            outcomes.add(prune(se.stream(), se.epoch()));
        }
        return outcomes;
    }

    /** Prunes one (stream, epoch) in batches until a bound stops it or the per-cycle batch limit is reached. */
    PruneOutcome prune(StreamId s, long epoch) {
        RetentionProperties.Prune config = properties.prune();
        long pruned = 0;
        int batches = 0;
        Batch last;
        do {
            if (batches > 0 && !config.batchPause().isZero()) {
                pause(config.batchPause().toMillis());
            }
            last = tx.execute(status -> pruneBatch(s, epoch, config.batchSize()));
            batches++;
            pruned += last.deleted();
            if (last.deleted() > 0) {
                metrics.pruned(last.deleted());
            }
        } while (last.full() && batches < config.maxBatchesPerStream());
        if (pruned > 0) {
            log.debug("pruned {} events of {} epoch {} through {} in {} batches", pruned, s, epoch,
                    last.prunedThrough(), batches);
        }
        return new PruneOutcome(s, epoch, pruned, batches, last.prunedThrough());
    }

    private Batch pruneBatch(StreamId s, long epoch, int batchSize) {
        long p = retention.lock(s, epoch);
        long bound = p + batchSize;
        bound = min(bound, consumers.minDurablePosition(s, epoch));
        bound = min(bound, leases.minLivePin(s, epoch));
        if (bound <= p) {
            return new Batch(p, 0, false);
        }
        Scan scan = outbox.scan(s, epoch, p, bound, properties.minAge());
        long target = scan.ripeThrough();
        if (target <= p) {
            return new Batch(p, 0, false);
        }
        int deleted = outbox.deleteRange(s, epoch, p, target);
        retention.advancePrunedThrough(s, epoch, p, target);
        return new Batch(target, deleted, target == p + batchSize);
    }

    private static long min(long bound, OptionalLong other) {
        return other.isPresent() ? Math.min(bound, other.getAsLong()) : bound;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between prune batches", e);
        }
    }

    /** One batch: P after it, rows deleted, and whether the batch size (not a bound) stopped it. */
    private record Batch(long prunedThrough, int deleted, boolean full) {
    }

    /** What pruning one (stream, epoch) did. */
    record PruneOutcome(StreamId stream, long epoch, long pruned, int batches, long prunedThrough) {
    }
}
