package com.acme.catalog.product.recovery;

import com.acme.catalog.contracts.epoch.StartsFrom;

/** What {@link RecoveryDecision} decided a cycle does with a stream ({@link RecoveryCycle} carries it out). */
sealed interface RecoveryAction {

    /** A fact the decision needs and the state does not hold yet: observe it, then decide again. */
    record Observe(Fact fact) implements RecoveryAction {
    }

    /** The facts observed only when they matter, in the order the decision asks for them. */
    enum Fact {
        /** The resolver's epochs and cursor, where the current epoch starts, the divergence mark. */
        SOURCE,
        /** Report the applied position ahead of the resolver's cursor: does the resolver confirm a rollback? */
        AHEAD_REPORT,
        /** The resolver's chain digest at the serving generation's verified position. */
        CHAIN_CHECK
    }

    /** Another instance holds the worker lease. */
    record NotOwner() implements RecoveryAction {
    }

    /** A rebuild of the stream runs on this instance: it goes on. */
    record RebuildUnderWay() implements RecoveryAction {
    }

    /** No serving generation, and the product should serve the stream: open it. */
    record Open() implements RecoveryAction {
    }

    /** Nothing to do here: {@code why}. */
    record Idle(String why) implements RecoveryAction {
    }

    /**
     * Rebuild from an export. {@code discardHeld}: the serving generation's epoch is over, its held events go to the
     * audit first. {@code notAdopted}: why a new epoch was not adopted in place (null when no new epoch).
     */
    record Rebuild(Kind kind, String why, boolean discardHeld, NotAdopted notAdopted) implements RecoveryAction {

        /** The rebuild's reason as the rebuild service records it. */
        enum Kind { RECOVERY, PROJECTION_UPGRADE }
    }

    /**
     * The serving generation holds exactly the state epoch {@code epoch} starts over ({@code from}): move it to
     * position 0 of that epoch in place, no export.
     */
    record Adopt(long epoch, StartsFrom from) implements RecoveryAction {
    }

    /** A condition retrying blindly will not fix (BLOCKED); the cycle fails with {@code why}. */
    record Blocked(String why) implements RecoveryAction {
    }

    /** The serving generation's chain is not the resolver's: mark it and rebuild. */
    record Diverged(String why) implements RecoveryAction {
    }

    /** Verified through the resolver's cursor. */
    record Current() implements RecoveryAction {
    }

    /** Behind, but the relay is delivering (a periodic cycle): leave it to the relay. */
    record LeftToTheRelay() implements RecoveryAction {
    }

    /** Behind: catch up bounded pages to the resolver's cursor. */
    record CatchUp() implements RecoveryAction {
    }

    /** Why a serving generation of an older epoch is not adopted into the current one (it is rebuilt). */
    enum NotAdopted {
        /** Where the current epoch starts is not known (a first epoch, an old rotation, the store unread). */
        START_UNKNOWN,
        /** The current epoch starts from nothing (a reset): no history matches it. */
        STARTS_EMPTY,
        /** The control store's epoch whose start is known is not the newest epoch known. */
        START_OF_ANOTHER_EPOCH,
        /** The resolver's database has not opened the current epoch. */
        NOT_OPENED,
        /** The current epoch starts from another epoch than the one served (two rotations, or more). */
        OTHER_EPOCH,
        /** The serving generation was marked diverged. */
        DIVERGED,
        /** Applied beyond where the current epoch starts: it holds what the restore lost. */
        AHEAD,
        /** Applied short of where the current epoch starts (why this rebuilds: docs/epochs.md "The product"). */
        BEHIND,
        /** Verified events held above the applied position: the digest at the applied position is not at hand. */
        HELD_ABOVE,
        /** Same position, another chain digest: another history. */
        DIGEST_DIFFERS
    }
}
