package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.lease.WorkerFence;

/**
 * An attempt of a rebuild as it starts, before any step ran: what every step needs and no step changes.
 *
 * @param id                the rebuild's id
 * @param fence             the worker lease the attempt's commits are fenced by
 * @param projectionVersion the projection version the attempt builds with (this instance's)
 * @param anyVersion        whether the cutover may replace a serving generation of a newer projection version (the
 *                          operator's override)
 * @param progress          what the steps report per COPY chunk and catch-up page ({@link RebuildProgresses} shows
 *                          it): an observer of the attempt, not one of its results
 */
record Started(UUID id, StreamId stream, WorkerFence fence, int projectionVersion, boolean anyVersion,
        RebuildProgress progress) implements Reached {

    Started {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(progress, "progress");
    }

    /** @return a new attempt of rebuild {@code id} with a fresh progress */
    static Started of(UUID id, WorkerFence fence, int projectionVersion, boolean anyVersion) {
        return new Started(id, fence.stream(), fence, projectionVersion, anyVersion,
                new RebuildProgress(System::nanoTime));
    }

    @Override
    public Started started() {
        return this;
    }

    @Override
    public Optional<Pinned> lease() {
        return Optional.empty();
    }
}
