package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;

/**
 * {@link LoadShadowStep}'s result: the BUILDING shadow generation holding the export, its cursor at W.
 *
 * @param generation the shadow generation's id
 * @param rows       the rows loaded
 * @param position   W, the export's cursor
 */
record LoadedShadow(Pinned pinned, long generation, long rows, long position) implements Reached {

    LoadedShadow {
        Objects.requireNonNull(pinned, "pinned");
    }

    @Override
    public Started started() {
        return pinned.started();
    }

    @Override
    public Optional<Pinned> lease() {
        return Optional.of(pinned);
    }
}
