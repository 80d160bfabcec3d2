package com.acme.catalog.product.rebuild;

/** Phases of a rebuild, in order; the gauge {@code product_rebuild_phase} shows the ordinal while one runs. */
public enum RebuildPhase {
    LEASING, EXPORTING, LOADING, CATCHING_UP, CUTTING_OVER, DONE, FAILED, ABORTED;

    public boolean isFinal() {
        return this == DONE || this == FAILED || this == ABORTED;
    }
}
