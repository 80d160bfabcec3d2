package com.acme.catalog.product.inbox;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The live consumer: one delivery batch of one stream is one transaction that locks the stream's serving
 * generation, audits old-epoch events, applies the rest and saves the cursor. Only after that transaction commits
 * are the metrics updated and the contiguous position offered to the {@link ProgressReporter}.
 */
@Service
class InboxService {

    private static final Logger log = LoggerFactory.getLogger(InboxService.class);

    private final TransactionTemplate tx;
    private final GenerationRepository generations;
    private final EventApplier applier;
    private final OldEpochAudit oldEpochs;
    private final InboxMetrics metrics;
    private final ProgressReporter progress;
    private final boolean autoStart;
    private final StreamAdmission admission;
    private final DeliveryObserver signals;
    private final StreamEpochs epochs;

    InboxService(TransactionTemplate tx, GenerationRepository generations, EventApplier applier,
            OldEpochAudit oldEpochs, InboxMetrics metrics, ProgressReporter progress, DeliveryObserver signals,
            StreamEpochs epochs, InboxProperties properties, StreamAdmission admission) {
        this.epochs = epochs;
        this.signals = signals;
        this.tx = tx;
        this.generations = generations;
        this.applier = applier;
        this.oldEpochs = oldEpochs;
        this.metrics = metrics;
        this.progress = progress;
        this.autoStart = properties.autoStartStreams();
        this.admission = admission;
    }

    /** The outcome of one delivery, in delivery order, and the cursor it committed. */
    record Delivered(GenerationCursor cursor, List<Outcome> outcomes) {
    }

    /** Applies one delivery of events, all of {@code stream}; tells the recovery worker what it saw. */
    Delivered deliver(StreamId stream, List<IntegrationEvent> events) {
        Delivered d;
        try {
            d = deliverOnce(stream, events);
        } catch (RuntimeException e) {
            signals.deliveryFailed(stream, e);
            throw e;
        }
        signals.delivered(stream, d.cursor());
        return d;
    }

    private Delivered deliverOnce(StreamId stream, List<IntegrationEvent> events) {
        long started = System.nanoTime();
        try {
            return tx.execute(status -> deliverLocked(stream, events));
        } catch (ChainBrokenException broken) {
            try {
                if (tx.execute(status -> applier.discardBrokenHeld(broken))) {
                    log.warn("{}: discarded held event at position {} of generation {}, which does not chain",
                            stream, broken.position(), broken.generationId());
                }
            } catch (RuntimeException e) {
                log.warn("{}: could not discard the held event at position {}: {}", stream, broken.position(),
                        e.toString());
            }
            throw broken;
        } finally {
            metrics.applied(System.nanoTime() - started);
        }
    }

    private Delivered deliverLocked(StreamId stream, List<IntegrationEvent> events) {
        long newest = events.stream().mapToLong(IntegrationEvent::epoch).max().orElseThrow();
        long known = epochs.current(stream);
        GenerationCursor cursor = generations.lockServing(stream)
                .orElseGet(() -> start(stream, Math.max(newest, known), events));
        // the current epoch: the serving generation's, or the resolver's when it announced a newer one (the
        // generation is then stale and being rebuilt; its own epoch's events must not be applied to it any more)
        long current = Math.max(cursor.epoch(), known > cursor.epoch() ? epochs.currentInDatabase(stream) : 0);
        if (newest > cursor.epoch() && newest >= current) {
            throw new ApiException(ProblemCode.EPOCH_MISMATCH, "%s serves epoch %d; events of epoch %d need a "
                    + "rebuild from that epoch's export first".formatted(stream, cursor.epoch(), newest));
        }
        List<IntegrationEvent> live = new ArrayList<>(events.size());
        int old = 0;
        for (IntegrationEvent e : events) {
            if (e.epoch() < current) {
                oldEpochs.record(e, current, OldEpochAudit.Source.DELIVERY);
                old++;
            } else {
                live.add(e);
            }
        }
        ApplyResult result;
        if (live.isEmpty()) {
            result = new ApplyResult(cursor, List.of(), applier.heldEvents(cursor.generationId()));
            generations.saveCursor(cursor);
        } else {
            result = applier.apply(cursor, live);
        }
        GenerationCursor after = result.cursor();
        long held = result.heldEvents();
        int oldCount = old;
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                metrics.observe(after, held);
                oldEpochs.count(stream, OldEpochAudit.Source.DELIVERY, oldCount);
                progress.offer(stream, after.epoch(), after.appliedPosition());
            }
        });
        return new Delivered(after, merge(events, current, result.outcomes()));
    }

    /**
     * A delivery never opens a stream on its own: only one that PRODUCT_STREAMS lists or subscribes to gets an empty
     * serving generation from its first delivery (with {@code product.inbox.auto-start-streams}), and only once the
     * resolver confirms the stream, the epoch and the chain digest at the delivery's last position of that epoch; any
     * other must be bootstrapped first (a rebuild), so a relay token replayed by anyone cannot plant a stream.
     */
    private GenerationCursor start(StreamId stream, long epoch, List<IntegrationEvent> events) {
        if (!admission.mayStartOnDelivery(stream)) {
            metrics.refusedUnknownStream();
            throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " is not served here: it is not in "
                    + "PRODUCT_STREAMS and was never bootstrapped (an operator starts a rebuild to serve it)");
        }
        if (!autoStart) {
            throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " has no serving generation; "
                    + "bootstrap it with a rebuild first");
        }
        IntegrationEvent last = events.stream().filter(e -> e.epoch() == epoch)
                .max(java.util.Comparator.comparingLong(IntegrationEvent::position))
                .orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " has no serving "
                        + "generation and this delivery has no event of its current epoch " + epoch));
        try {
            admission.confirm(stream, last);
        } catch (ApiException refused) {
            if (refused.code() != ProblemCode.DATABASE_UNAVAILABLE) {
                metrics.refusedUnknownStream();
            }
            throw refused;
        }
        log.info("{}: no serving generation yet, starting an empty one at position 0 of epoch {}", stream, epoch);
        return generations.startServingEmpty(stream, epoch);
    }

    /** Old-epoch events answer IGNORED_OLD_EPOCH; the others take the applier's outcomes, in order. */
    private static List<Outcome> merge(List<IntegrationEvent> events, long servingEpoch, List<Outcome> applied) {
        List<Outcome> out = new ArrayList<>(events.size());
        int next = 0;
        for (IntegrationEvent e : events) {
            out.add(e.epoch() < servingEpoch ? Outcome.IGNORED_OLD_EPOCH : applied.get(next++));
        }
        return out;
    }
}
