package com.acme.catalog.product.rebuild;

import java.util.Optional;

/**
 * What an attempt of a rebuild has reached: the result of its last step, immutable. Each step of
 * {@link RebuildSteps} takes the previous step's result and returns its own ({@link Started} → {@link Pinned} →
 * {@link ReadyExport} → {@link LoadedShadow} → {@link CaughtUp} → {@link CutOver}); {@link RebuildService} keeps the
 * last one, and when a step fails, {@link RestartPolicy} weighs the failure and {@link RetireStep#abandon} undoes what
 * the last result holds (its resolver lease, its shadow unless it was cut over).
 */
sealed interface Reached permits Started, Pinned, ReadyExport, LoadedShadow, CaughtUp, CutOver {

    /** @return the attempt this result belongs to */
    Started started();

    /** @return the attempt's epoch and resolver lease once {@link LeaseStep} pinned them */
    Optional<Pinned> lease();

    /** @return whether the cutover committed: the shadow serves and is never retired as the attempt's leftover */
    default boolean cutOver() {
        return false;
    }
}
