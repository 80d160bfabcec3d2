package com.acme.catalog.product.rebuild;

/** Told by the shadow load as it copies an export: per COPY chunk, never per row ({@link RebuildProgress}). */
interface CopyProgress {

    /** Ignores everything. */
    CopyProgress NONE = n -> { };

    /** {@code n} more rows went to the database (one COPY chunk); called from the loading connections' threads. */
    void rowsCopied(long n);

    /** Every object is copied; the load's remaining work (derived rows, indexes, attach) counts no rows. */
    default void copied() {
    }
}
