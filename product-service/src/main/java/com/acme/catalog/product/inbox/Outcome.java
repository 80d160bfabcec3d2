package com.acme.catalog.product.inbox;

/** What happened to one delivered event (the contract's POST /v1/inbox/events). */
public enum Outcome {
    /** Projected, or a later part of this delivery made it applicable and it was projected. */
    APPLIED,
    /** Received before (processed, held or earlier in the same delivery); nothing changed. */
    DUPLICATE,
    /** Held: it arrived before its chain predecessor, or it waits for an aggregate revision it depends on. */
    PARKED,
    /** Processed without projecting: an unknown type, a DecisionRecorded, or a revision the copy already has. */
    IGNORED,
    /** Of an epoch older than the serving generation's: audited and terminally ignored. */
    IGNORED_OLD_EPOCH
}
