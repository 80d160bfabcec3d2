package com.acme.catalog.product.recovery;

import java.util.Optional;

import com.acme.catalog.contracts.epoch.StartsFrom;
import com.acme.catalog.product.recovery.RecoveryAction.Adopt;
import com.acme.catalog.product.recovery.RecoveryAction.Blocked;
import com.acme.catalog.product.recovery.RecoveryAction.CatchUp;
import com.acme.catalog.product.recovery.RecoveryAction.Current;
import com.acme.catalog.product.recovery.RecoveryAction.Diverged;
import com.acme.catalog.product.recovery.RecoveryAction.Fact;
import com.acme.catalog.product.recovery.RecoveryAction.Idle;
import com.acme.catalog.product.recovery.RecoveryAction.LeftToTheRelay;
import com.acme.catalog.product.recovery.RecoveryAction.NotAdopted;
import com.acme.catalog.product.recovery.RecoveryAction.NotOwner;
import com.acme.catalog.product.recovery.RecoveryAction.Observe;
import com.acme.catalog.product.recovery.RecoveryAction.Open;
import com.acme.catalog.product.recovery.RecoveryAction.Rebuild;
import com.acme.catalog.product.recovery.RecoveryAction.RebuildUnderWay;
import com.acme.catalog.product.recovery.StreamState.Serving;
import com.acme.catalog.product.recovery.StreamState.Source;

/**
 * The recovery policy (docs/design.md §7 "A recovery worker", docs/rebuild.md "Triggers and what a cycle does"):
 * what a cycle does with a stream, from what it observed. A pure function, no threads, no I/O, no framework
 * ({@code RecoveryDecisionTest} reads this file's imports); the cases in order, the first that applies decides:
 *
 * <ol>
 * <li>not the lease holder: nothing;
 * <li>rebuild under way here: it goes on;
 * <li>not serving: open a stream the product should serve, else nothing;
 * <li>newer projection version serving: left to an instance of that version;
 * <li>epoch moved (the newest epoch known is above the one served): adopted in place when the generation holds
 *     exactly the state the new epoch starts over ({@link #adoption}), else rebuilt;
 * <li>epoch behind (the resolver's open epoch below the one served): BLOCKED;
 * <li>rolled back beneath (applied above the resolver's cursor, not marked): reported; a confirmed rollback diverged;
 * <li>chain diverged (marked before, or the resolver's digest differs): marked and rebuilt;
 * <li>older projection version serving: rebuilt to this version in the background;
 * <li>current (applied through the resolver's cursor): CURRENT;
 * <li>pruned tail (the resolver pruned beyond the verified position): rebuilt, catch-up cannot close the gap;
 * <li>left to the relay (a periodic cycle, and the relay delivered what the previous one saw): nothing;
 * <li>otherwise: catch up.
 * </ol>
 */
final class RecoveryDecision {

    private RecoveryDecision() {
    }

    static RecoveryAction decide(StreamState s) {
        if (!s.leaseHeld()) {
            return new NotOwner();
        }
        if (s.rebuildRunsHere()) {
            return new RebuildUnderWay();
        }
        Serving g = s.serving();
        if (g == null) {
            return s.subscribed() ? new Open() : new Idle("not served, and not a stream the product should serve");
        }
        if (s.thisVersion() < g.projectionVersion()) {
            return new Idle("served by projection version " + g.projectionVersion() + ", newer than this "
                    + "instance's " + s.thisVersion() + ": left to an instance of that version");
        }
        Source src = s.source();
        if (src == null) {
            return new Observe(Fact.SOURCE);
        }
        long newest = src.newest();
        if (newest > g.epoch()) {
            Optional<NotAdopted> refused = adoption(g, src);
            if (refused.isEmpty()) {
                return new Adopt(newest, src.startsFrom());
            }
            return new Rebuild(Rebuild.Kind.RECOVERY, "the current epoch is " + newest + ", the product serves "
                    + g.epoch() + " (not adopted in place: " + refused.get() + ")", true, refused.get());
        }
        if (src.epoch() < g.epoch()) {
            return new Blocked("EPOCH_BEHIND: the resolver is at epoch " + src.epoch()
                    + " but the product serves epoch " + g.epoch());
        }
        if (g.appliedPosition() > src.cursor() && src.divergence() == null) {
            if (s.ahead() == null) {
                return new Observe(Fact.AHEAD_REPORT);
            }
            if (s.ahead().failed()) {
                return new Diverged(s.ahead().divergence());
            }
        }
        if (src.divergence() != null) {
            return new Diverged(src.divergence());
        }
        if (s.chain() == null) {
            return new Observe(Fact.CHAIN_CHECK);
        }
        if (s.chain().failed()) {
            return new Diverged(s.chain().divergence());
        }
        if (g.projectionVersion() < s.thisVersion()) {
            return new Rebuild(Rebuild.Kind.PROJECTION_UPGRADE, "the serving generation was built by projection "
                    + "version " + g.projectionVersion() + ", this instance's is " + s.thisVersion(), false, null);
        }
        if (g.appliedPosition() >= src.cursor()) {
            return new Current();
        }
        if (g.chainPosition() < src.prunedThrough()) {
            return new Rebuild(Rebuild.Kind.RECOVERY, "the resolver pruned the stream through " + src.prunedThrough()
                    + ", beyond the verified position " + g.chainPosition() + ": catch-up cannot close the gap",
                    false, null);
        }
        if (s.periodic() && (src.periodicBoundary() == null || g.appliedPosition() >= src.periodicBoundary())) {
            return new LeftToTheRelay();
        }
        return new CatchUp();
    }

    /**
     * Whether a generation of an older epoch holds exactly the state the newest epoch starts over, proven, never
     * guessed (docs/epochs.md "Where a new epoch starts"): that epoch is the control store's current one, the
     * resolver's database opened it, its start is known, not empty, in the epoch served, and the generation applied
     * (and verified) exactly through that position with the same chain digest there, and was never found diverged.
     *
     * @return empty when it is adoptable; otherwise the first reason it is not
     */
    static Optional<NotAdopted> adoption(Serving g, Source src) {
        StartsFrom from = src.startsFrom();
        long newest = src.newest();
        if (from == null) {
            return Optional.of(NotAdopted.START_UNKNOWN);
        }
        if (from.empty()) {
            return Optional.of(NotAdopted.STARTS_EMPTY);
        }
        if (src.controlEpoch() != newest) {
            return Optional.of(NotAdopted.START_OF_ANOTHER_EPOCH);
        }
        if (src.epoch() != newest) {
            return Optional.of(NotAdopted.NOT_OPENED);
        }
        if (from.epoch() == null || from.epoch() != g.epoch()) {
            return Optional.of(NotAdopted.OTHER_EPOCH);
        }
        if (src.divergence() != null) {
            return Optional.of(NotAdopted.DIVERGED);
        }
        if (g.appliedPosition() > from.position()) {
            return Optional.of(NotAdopted.AHEAD);
        }
        if (g.appliedPosition() < from.position()) {
            return Optional.of(NotAdopted.BEHIND);
        }
        if (g.chainPosition() != g.appliedPosition()) {
            return Optional.of(NotAdopted.HELD_ABOVE);
        }
        if (!from.chainDigest().equals(g.chainDigest())) {
            return Optional.of(NotAdopted.DIGEST_DIFFERS);
        }
        return Optional.empty();
    }
}
