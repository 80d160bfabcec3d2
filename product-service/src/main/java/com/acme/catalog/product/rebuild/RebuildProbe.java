package com.acme.catalog.product.rebuild;

/**
 * Points of a rebuild where tests hold it: {@code LOADING} before the attach transaction commits (the plain tables
 * filled and committed), {@code CATCHING_UP} once per attempt after the first catch-up page committed,
 * {@code CUTTING_OVER} inside the cutover transaction, holding the live lock, just before the swap. Production
 * uses {@link #NONE}.
 */
@FunctionalInterface
interface RebuildProbe {

    /** Does nothing. */
    RebuildProbe NONE = phase -> { };

    /** Called on the rebuild's thread at the point of {@code phase}; may block, must not throw but to abort. */
    void reached(RebuildPhase phase);
}
