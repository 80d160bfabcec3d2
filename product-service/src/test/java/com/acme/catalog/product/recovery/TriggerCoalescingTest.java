package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.product.recovery.RecoveryWorker.Due;
import com.acme.catalog.product.recovery.RecoveryWorker.Trigger;

import org.junit.jupiter.api.Test;

/**
 * Two triggers of one stream run once, as soon as either asked, for the stronger reason (a periodic cycle leaves a
 * behind stream to the relay, so any other reason is stronger); a retry after a failure keeps its backoff.
 */
class TriggerCoalescingTest {

    private static Due due(long waitMs, Trigger why) {
        return new Due(waitMs, why);
    }

    @Test
    void aSoonerPeriodicTriggerRunsForThePendingGap() {
        assertThat(Due.coalesce(due(100, Trigger.GAP), due(0, Trigger.PERIODIC))).contains(due(0, Trigger.GAP));
    }

    @Test
    void aLaterGapTriggerGivesThePendingPeriodicOneItsReason() {
        assertThat(Due.coalesce(due(0, Trigger.PERIODIC), due(100, Trigger.GAP))).contains(due(0, Trigger.GAP));
    }

    @Test
    void aLaterTriggerLeavesASoonerOneOfAStrongReasonAsItIs() {
        assertThat(Due.coalesce(due(0, Trigger.GAP), due(100, Trigger.PERIODIC))).isEmpty();
        assertThat(Due.coalesce(due(0, Trigger.STARTUP), due(100, Trigger.GAP))).isEmpty();
        assertThat(Due.coalesce(due(0, Trigger.PERIODIC), due(50, Trigger.PERIODIC))).isEmpty();
        assertThat(Due.coalesce(due(30, Trigger.CHAIN_BREAK), due(30, Trigger.GAP))).as("as soon: the first stands")
                .isEmpty();
    }

    @Test
    void aSoonerTriggerReplacesALaterOne() {
        assertThat(Due.coalesce(due(100, Trigger.STARTUP), due(0, Trigger.GAP))).contains(due(0, Trigger.GAP));
        assertThat(Due.coalesce(due(100, Trigger.PERIODIC), due(0, Trigger.PERIODIC)))
                .contains(due(0, Trigger.PERIODIC));
    }

    @Test
    void aRetryReplacesASoonerTriggerSoTheBackoffHolds() {
        assertThat(Due.coalesce(due(0, Trigger.CONTINUE), due(400, Trigger.RETRY))).contains(due(400, Trigger.RETRY));
        assertThat(Due.coalesce(due(0, Trigger.GAP), due(400, Trigger.RETRY))).contains(due(400, Trigger.RETRY));
    }
}
