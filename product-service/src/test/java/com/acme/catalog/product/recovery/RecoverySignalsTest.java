package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;

import org.junit.jupiter.api.Test;

class RecoverySignalsTest {

    private static final StreamId S = new StreamId("acme", "signals");
    private final List<Trigger> triggered = new ArrayList<>();
    private final RecoverySignals signals = new RecoverySignals((s, t) -> triggered.add(t));

    private static GenerationCursor cursor(long chain, long highestSeen) {
        return new GenerationCursor(1, S, 1, chain, ChainDigest.ZERO, chain, highestSeen, 1);
    }

    @Test
    void aDeliveryThatLeavesEventsHeldAboveTheVerifiedPositionSignalsAGap() {
        signals.delivered(S, cursor(10, 10));
        assertThat(triggered).isEmpty();
        signals.delivered(S, cursor(10, 25));
        assertThat(triggered).containsExactly(Trigger.GAP);
    }

    @Test
    void deliveriesResumingAfterAFailureSignalOnceOnTheEdge() {
        signals.deliveryFailed(S, new IllegalStateException("database down"));
        signals.deliveryFailed(S, new IllegalStateException("database down"));
        assertThat(triggered).isEmpty();
        signals.delivered(S, cursor(5, 5));
        signals.delivered(S, cursor(6, 6));
        assertThat(triggered).containsExactly(Trigger.DELIVERIES_RESUMED);
    }

    @Test
    void chainBreaksPositionsAheadAndOtherEpochsSignalBadInputDoesNot() {
        signals.deliveryFailed(S, new ApiException(ProblemCode.CHAIN_BROKEN, "x"));
        signals.deliveryFailed(S, new ApiException(ProblemCode.POSITION_AHEAD, "x"));
        signals.deliveryFailed(S, new ApiException(ProblemCode.EPOCH_MISMATCH, "x"));
        signals.deliveryFailed(S, new ApiException(ProblemCode.INVALID_EVENT, "x"));
        assertThat(triggered).containsExactly(Trigger.CHAIN_BREAK, Trigger.GAP, Trigger.EPOCH_MISMATCH);
        signals.delivered(S, cursor(1, 1));
        assertThat(triggered).hasSize(3);
    }
}
