package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;

/**
 * {@link CutoverStep}'s result: the stream serves the shadow, processed through the target H.
 *
 * @param target   H, the resolver's head the tail reached
 * @param replaced the generation that served before, if any: {@link RetireStep} retires it
 */
record CutOver(CaughtUp caughtUp, long target, Optional<Long> replaced) implements Reached {

    CutOver {
        Objects.requireNonNull(caughtUp, "caughtUp");
        Objects.requireNonNull(replaced, "replaced");
    }

    long generation() {
        return caughtUp.generation();
    }

    @Override
    public Started started() {
        return caughtUp.started();
    }

    @Override
    public Optional<Pinned> lease() {
        return caughtUp.lease();
    }

    @Override
    public boolean cutOver() {
        return true;
    }
}
