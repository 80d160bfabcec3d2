package com.acme.catalog.product.recovery;

import com.acme.catalog.contracts.epoch.StartsFrom;

/**
 * What a recovery cycle observed of one stream, as plain values: the input of {@link RecoveryDecision}. The
 * observer ({@link StreamObserver}) fills it in stages, cheapest first; a stage not observed yet is null, and the
 * decision asks for it ({@link RecoveryAction.Observe}) only when the answer matters, so a cycle never reports a
 * position ahead or asks for a chain digest it does not need.
 *
 * @param periodic        whether the cycle runs for the periodic trigger (which leaves a behind stream to the relay)
 * @param leaseHeld       whether this instance holds the stream's worker lease
 * @param rebuildRunsHere whether a rebuild of the stream runs on this instance
 * @param serving         the serving generation's cursor; null when the stream has none
 * @param subscribed      whether the product should serve the stream (listed or matching a pattern)
 * @param thisVersion     this instance's projection version
 * @param source          the resolver's view; null until observed
 * @param ahead           the resolver's answer to the position reported ahead of its cursor; null until asked
 * @param chain           the comparison of the serving digest with the resolver's; null until asked
 */
record StreamState(boolean periodic, boolean leaseHeld, boolean rebuildRunsHere, Serving serving,
        boolean subscribed, int thisVersion, Source source, Check ahead, Check chain) {

    /** The serving generation's cursor: its epoch, applied and verified positions, digest at the verified one. */
    record Serving(long epoch, long appliedPosition, long chainPosition, String chainDigest, int projectionVersion) {
    }

    /**
     * The resolver's view of the stream and what the product knows beside it.
     *
     * @param controlEpoch     the control store's current epoch (through the resolver's epoch API); 0 when unread
     * @param learntEpoch      the highest epoch the product learnt (its {@code stream_epoch})
     * @param epoch            the epoch of the resolver's open cursor
     * @param cursor           the resolver's committed position there
     * @param prunedThrough    the position through which the resolver pruned the stream's retained events
     * @param startsFrom       where {@code controlEpoch} starts from, as its rotation recorded it; null when unknown
     * @param divergence       why the serving generation was marked diverged; null when it was not
     * @param periodicBoundary the resolver's cursor at the stream's previous periodic cycle; null without one
     */
    record Source(long controlEpoch, long learntEpoch, long epoch, long cursor, long prunedThrough,
            StartsFrom startsFrom,
            String divergence, Long periodicBoundary) {

        /** The newest epoch any of the three sources knows. */
        long newest() {
            return Math.max(Math.max(controlEpoch, epoch), learntEpoch);
        }
    }

    /** A check against the resolver: {@code divergence} null when it passed. */
    record Check(String divergence) {

        static final Check PASSED = new Check(null);

        boolean failed() {
            return divergence != null;
        }
    }

    StreamState withSource(Source s) {
        return new StreamState(periodic, leaseHeld, rebuildRunsHere, serving, subscribed, thisVersion, s, ahead,
                chain);
    }

    StreamState withAhead(Check c) {
        return new StreamState(periodic, leaseHeld, rebuildRunsHere, serving, subscribed, thisVersion, source, c,
                chain);
    }

    StreamState withChain(Check c) {
        return new StreamState(periodic, leaseHeld, rebuildRunsHere, serving, subscribed, thisVersion, source, ahead,
                c);
    }
}
