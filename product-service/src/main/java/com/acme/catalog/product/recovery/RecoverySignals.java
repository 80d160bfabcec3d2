package com.acme.catalog.product.recovery;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.inbox.DeliveryObserver;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * What the live consumer tells the recovery worker, in process and without waiting for it: a gap it cannot fill
 * (events held above the verified position), a chain break, a position too far ahead, an epoch it does not
 * serve, and deliveries resuming after a failed one. Cheap enough for every delivery. The inbox's
 * {@link DeliveryObserver}.
 */
@Component
public class RecoverySignals implements DeliveryObserver {

    private final BiConsumer<StreamId, Trigger> worker;
    private final Set<StreamId> failing = ConcurrentHashMap.newKeySet();

    @Autowired
    RecoverySignals(RecoveryWorker worker) {
        this(worker::trigger);
    }

    RecoverySignals(BiConsumer<StreamId, Trigger> worker) {
        this.worker = worker;
    }

    /** A delivery committed; {@code after} is the serving cursor it committed. */
    @Override
    public void delivered(StreamId stream, GenerationCursor after) {
        if (!failing.isEmpty() && failing.remove(stream)) {
            worker.accept(stream, Trigger.DELIVERIES_RESUMED);
        }
        if (after.highestSeenPosition() > after.chainPosition()) {
            worker.accept(stream, Trigger.GAP);
        }
    }

    /** A delivery was refused or failed; nothing of it was committed. */
    @Override
    public void deliveryFailed(StreamId stream, RuntimeException e) {
        if (e instanceof ApiException a) {
            switch (a.code()) {
                case CHAIN_BROKEN -> worker.accept(stream, Trigger.CHAIN_BREAK);
                case POSITION_AHEAD -> worker.accept(stream, Trigger.GAP);
                case EPOCH_MISMATCH -> worker.accept(stream, Trigger.EPOCH_MISMATCH);
                default -> { } // bad input: the sender's problem, not a gap
            }
            return;
        }
        failing.add(stream);
    }
}
