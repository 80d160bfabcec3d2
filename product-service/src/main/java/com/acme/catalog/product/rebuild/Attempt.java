package com.acme.catalog.product.rebuild;

import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.projection.ProjectionVersion;

/**
 * One attempt of a rebuild, as its steps fill it in: the epoch and resolver lease (with its one {@link LeaseKeeper}),
 * the shadow generation once created, whether the cutover committed and at which target. Everything it created is
 * undone by {@link RetireStep#abandon} unless the cutover committed. Confined to the rebuild's thread, except
 * {@link #generation}, which the process's takeover ({@link RebuildService#resumeUnfinished}) reads.
 */
final class Attempt {

    final UUID id;
    final StreamId stream;
    /** The worker lease the attempt's commits are fenced by; null for the placeholder of a submitted rebuild. */
    final WorkerFence fence;
    long epoch;
    String leaseId;
    LeaseKeeper keeper;
    volatile Long generation;
    /** The projection version the attempt builds with (this instance's). */
    int projectionVersion = ProjectionVersion.CURRENT;
    /** Whether the cutover may replace a serving generation of a newer projection version (the operator's override). */
    boolean anyVersion;
    boolean cutOver;
    long target;
    long catchUpStartNanos;
    long caughtUpEvents;
    /** What its steps report per COPY chunk and catch-up page ({@link RebuildProgresses} shows it). */
    final RebuildProgress progress = new RebuildProgress(System::nanoTime);

    Attempt(UUID id, StreamId stream, WorkerFence fence) {
        this.id = id;
        this.stream = stream;
        this.fence = fence;
    }

    /** Stops renewing the resolver lease (idempotent). */
    void stopRenewing() {
        if (keeper != null) {
            keeper.close();
        }
    }
}
