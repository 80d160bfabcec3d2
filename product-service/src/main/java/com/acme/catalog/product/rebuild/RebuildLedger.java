package com.acme.catalog.product.rebuild;

import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.lease.WorkerFence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * A rebuild's bookkeeping: each change of its row (phase, worker, restart, hand-over, failure) written together with
 * the phase gauge it moves, and each applied page's progress with its counters, so that the row operators read
 * ({@code GET /v1/rebuilds/{id}}) and the metrics never tell different stories.
 */
@Component
class RebuildLedger {

    private static final Logger log = LoggerFactory.getLogger(RebuildLedger.class);

    private final RebuildRepository rebuilds;
    private final RebuildMetrics metrics;

    RebuildLedger(RebuildRepository rebuilds, RebuildMetrics metrics) {
        this.rebuilds = rebuilds;
        this.metrics = metrics;
    }

    /** A new rebuild of {@code stream}, LEASING under {@code fence}. */
    void started(UUID id, StreamId stream, WorkerFence fence, String reason, int projectionVersion) {
        rebuilds.insert(id, stream, reason, projectionVersion);
        worker(id, fence);
        metrics.phase(stream, RebuildPhase.LEASING);
    }

    /** The attempt about to run is under {@code fence}. */
    void worker(UUID id, WorkerFence fence) {
        rebuilds.worker(id, fence.owner(), fence.fence());
    }

    void phase(Started a, RebuildPhase phase) {
        rebuilds.phase(a.id(), phase);
        a.progress().phase(phase);
        metrics.phase(a.stream(), phase);
    }

    /**
     * The rebuild starts over from a new export (LEASING again), its attempt counted, for {@code why}.
     *
     * @param nextRetryAt when its next attempt starts (it waits until then); null when at once
     */
    void restarted(UUID id, StreamId stream, RestartPolicy.Failure why, java.time.Instant now,
            java.time.Instant nextRetryAt) {
        rebuilds.restart(id, why.code(), why.text(), now, nextRetryAt);
        metrics.phase(stream, RebuildPhase.LEASING);
    }

    /**
     * The rebuild starts over at once at the stream's new epoch (LEASING again), its attempt counted, for
     * {@code why}; its retry budget is neither started nor used by it.
     */
    void restartedAtNewEpoch(UUID id, StreamId stream, RestartPolicy.Failure why) {
        rebuilds.restart(id, why.code(), why.text(), null, null);
        metrics.phase(stream, RebuildPhase.LEASING);
    }

    /** The rebuild is left unfinished for the next holder of the stream's worker lease. */
    void handOver(UUID id, StreamId stream, RestartPolicy.Failure why) {
        log.warn("{}: rebuild {} left for the next holder of the worker lease: {}", stream, id, why.text());
        rebuilds.handover(id, why.code(), why.text());
        metrics.left(stream);
    }

    /** The rebuild ends FAILED; {@code error} is {@code CODE: sentence} with {@code code}. */
    void failed(UUID id, StreamId stream, String code, String error) {
        rebuilds.fail(id, code, error);
        metrics.phase(stream, RebuildPhase.FAILED);
    }

    /** @return when the rebuild's retry budget started (its first retried failure), empty before one */
    java.util.Optional<java.time.Instant> retrySince(UUID id) {
        return rebuilds.retry(id).map(RebuildRepository.Retry::retrySince);
    }

    /** @return the rebuild's phase name, {@code ?} when its row is gone */
    String phaseOf(UUID id) {
        return rebuilds.find(id).map(r -> r.phase().name()).orElse("?");
    }

    /**
     * {@code events} more were applied to the caught-up shadow by the cutover's tail, now processed through
     * {@code appliedPosition}; {@code total} the events the attempt applied so far.
     */
    void caughtUp(CaughtUp c, long appliedPosition, int events, long total) {
        rebuilds.progress(c.started().id(), appliedPosition, events);
        metrics.caughtUp(c.started().stream(), events, total, System.nanoTime() - c.startNanos());
    }
}
