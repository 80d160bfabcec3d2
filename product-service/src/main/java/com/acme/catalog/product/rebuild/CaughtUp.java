package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;

/**
 * {@link CatchUpStep}'s result: the shadow caught up page by page to the head a page last showed.
 *
 * @param events     the events the catch-up applied
 * @param startNanos when the catch-up started ({@link System#nanoTime}): the cutover's tail adds to its rate
 */
record CaughtUp(LoadedShadow shadow, long events, long startNanos) implements Reached {

    CaughtUp {
        Objects.requireNonNull(shadow, "shadow");
    }

    long generation() {
        return shadow.generation();
    }

    @Override
    public Started started() {
        return shadow.started();
    }

    @Override
    public Optional<Pinned> lease() {
        return Optional.of(shadow.pinned());
    }
}
