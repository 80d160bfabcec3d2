package com.acme.catalog.product.rebuild;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Runs rebuilds (docs/rebuild.md). Each attempt is one cycle of {@link RebuildSteps}, one class per protocol step
 * (docs/design.md):
 * <ol>
 * <li>{@link LeaseStep}: learn the epoch, pin retention with a lease kept by one {@link LeaseKeeper} (step 2);</li>
 * <li>{@link AwaitExportStep}: request an export and wait until it is READY (steps 3–4);</li>
 * <li>{@link LoadShadowStep}: load it into a BUILDING generation at W (step 5);</li>
 * <li>{@link CatchUpStep}: apply the retained events after W page by page (steps 6–7);</li>
 * <li>{@link CutoverStep}: under the serving lock, apply the tail to the head H and swap (step 7);</li>
 * <li>{@link RetireStep}: retire the old generation, register the consumer at H, release the lease (step 7).</li>
 * </ol>
 * This class sequences them and decides restarts ({@link RebuildLedger} records each decision): a restart signal (a
 * 410 from the resolver, or a {@link RestartRequired} of the steps' own) or a passing failure ({@link RestartPolicy})
 * drops the shadow and restarts from a new export (bounded attempts); any other failure drops the shadow, releases the
 * lease and leaves the rebuild FAILED.
 *
 * <p>A rebuild runs under this instance's worker lease of the stream ({@link WorkerLeases}): the load, every
 * catch-up page and the cutover each end with the fence check, so once another owner (or a newer fence) took the
 * lease none of them can commit. A rebuild whose worker lost the lease stays unfinished; the next holder of the
 * lease restarts it ({@link #resumeUnfinished}).
 */
@Service
public class RebuildService {

    private static final Logger log = LoggerFactory.getLogger(RebuildService.class);

    private final RebuildRepository rebuilds;
    private final RebuildLedger ledger;
    private final WorkerLeases leases;
    private final RebuildSteps steps;
    private final int maxAttempts;
    private final RunningRebuilds running;
    private volatile boolean stopping;

    RebuildService(RebuildRepository rebuilds, RebuildLedger ledger, WorkerLeases leases, RebuildSteps steps,
            RebuildProperties properties) {
        this.rebuilds = rebuilds;
        this.ledger = ledger;
        this.leases = leases;
        this.steps = steps;
        this.maxAttempts = properties.maxAttempts();
        this.running = new RunningRebuilds(properties.workers());
        leases.onAcquired(this::resumeUnfinished);
    }

    /**
     * Starts a rebuild of {@code stream} under this instance's worker lease, or answers the one already running.
     *
     * @throws ApiException {@code WORKER_LEASE_HELD} while another instance holds the stream's worker lease
     */
    public UUID start(StreamId stream) {
        WorkerFence fence = leases.hold(stream).orElseThrow(() -> new ApiException(ProblemCode.WORKER_LEASE_HELD,
                "the recovery worker lease of " + stream + " is held by " + leases.holder(stream).orElse("another "
                        + "instance") + ", which runs its rebuilds"));
        synchronized (this) {
            Optional<UUID> active = rebuilds.active(stream);
            if (active.isPresent()) {
                return active.get();
            }
            UUID id = UuidV7.next();
            ledger.started(id, stream, fence);
            submit(id, stream);
            return id;
        }
    }

    /** @return whether a rebuild of {@code stream} runs in this process */
    public boolean runsHere(StreamId stream) {
        return running.runsOf(stream);
    }

    private void submit(UUID id, StreamId stream) {
        // a failure escaping run() (the database cut while an attempt was abandoned or its row written) would leave
        // the rebuild unfinished under this instance's own fence, which no takeover resumes: resume it here
        running.submit(id, stream, () -> run(id, stream), () -> !stopping && resumeHere(id, stream));
    }

    /** Resumes an escaped rebuild as a takeover would; @return whether it should run again here */
    private boolean resumeHere(UUID id, StreamId stream) {
        Optional<WorkerFence> fence = leases.hold(stream);
        if (fence.isEmpty()) {
            return false; // the lease's next holder resumes it
        }
        Optional<RebuildRepository.Unfinished> u = rebuilds.unfinished(stream).stream()
                .filter(r -> r.rebuildId().equals(id)).findFirst();
        if (u.isEmpty()) {
            return false; // it ended after all
        }
        running.attempt(new Attempt(id, stream, fence.get()));
        steps.retire().retireBuilding(stream, running.generationsOf(stream));
        return restart(u.get(), fence.get(), "a failure outside the attempt stopped it during " + u.get().phase());
    }

    /** Restarts an unfinished rebuild from a new export under {@code fence}; @return false when it gave up */
    private boolean restart(RebuildRepository.Unfinished u, WorkerFence fence, String why) {
        StreamId stream = fence.stream();
        steps.retire().releaseLeaseOf(stream, u);
        if (u.attempt() >= maxAttempts) {
            ledger.failed(u.rebuildId(), stream, "gave up after " + u.attempt() + " attempts: " + why);
            return false;
        }
        ledger.restarted(u.rebuildId(), stream, why);
        ledger.worker(u.rebuildId(), fence);
        return true;
    }

    public Optional<Rebuild> find(UUID id) {
        return rebuilds.find(id);
    }

    /** @return the rebuild's phase and step durations */
    Optional<RebuildRepository.Timings> timings(UUID id) {
        return rebuilds.timings(id);
    }

    /** @return the stream's most recent rebuild, running or finished */
    public Optional<Rebuild> latest(StreamId stream) {
        return rebuilds.latest(stream);
    }

    /** @return every stream's latest rebuild, read in one statement */
    public Map<StreamId, Rebuild> latestOfAll() {
        Map<StreamId, Rebuild> out = new HashMap<>();
        for (Rebuild r : rebuilds.latestOfAll()) {
            out.put(r.stream(), r);
        }
        return out;
    }

    /** @return streams whose unfinished rebuilds or BUILDING generations wait for a lease holder to clean up */
    public List<StreamId> unfinishedStreams() {
        return rebuilds.unfinishedStreams();
    }

    /**
     * Runs when this instance acquires a stream's worker lease with a new fence: the rebuilds left unfinished
     * under an older fence (a stopped or replaced worker; never one running in this process) are restarted from a
     * new export (or FAILED after {@code max-attempts}), their resolver leases released, and the stream's BUILDING
     * generations that no rebuild of this process loads are retired.
     */
    void resumeUnfinished(WorkerFence fence) {
        StreamId stream = fence.stream();
        Set<Long> keep = running.generationsOf(stream);
        List<RebuildRepository.Unfinished> orphans = rebuilds.unfinished(stream).stream()
                .filter(u -> !running.runs(u.rebuildId())).toList();
        List<Long> retired = steps.retire().retireBuilding(stream, keep);
        if (!orphans.isEmpty() || !retired.isEmpty()) {
            log.warn("{}: took over {} unfinished rebuild(s) under fence {}; retired BUILDING generation(s) {}",
                    stream, orphans.size(), fence.fence(), retired);
        }
        for (RebuildRepository.Unfinished u : orphans) {
            if (restart(u, fence, "the previous worker stopped during " + u.phase())) {
                submit(u.rebuildId(), stream);
            }
        }
    }

    /** Running rebuilds stay unfinished: the next holder of the worker lease restarts them. */
    @PreDestroy
    void stop() {
        stopping = true;
        running.stop();
    }

    /** Runs attempts until one is done, the rebuild fails, or it is left to the next holder of the worker lease. */
    private void run(UUID id, StreamId stream) {
        int attempt = rebuilds.find(id).map(Rebuild::attempt).orElse(1);
        for (;; attempt++) {
            Optional<WorkerFence> fence = stopping ? Optional.empty() : leases.hold(stream);
            if (fence.isEmpty()) {
                ledger.handOver(id, stream, "this instance no longer holds the worker lease");
                return;
            }
            ledger.worker(id, fence.get());
            Attempt a = new Attempt(id, stream, fence.get());
            running.attempt(a);
            String restartWhy;
            try {
                runSteps(a);
                ledger.phase(a, RebuildPhase.DONE);
                log.info("{}: rebuild {} done at position {}", stream, id, a.target);
                return;
            } catch (Exception e) {
                steps.retire().abandon(a);
                Optional<String> signalled = RestartPolicy.restartSignal(e);
                Optional<String> transientWhy = RestartPolicy.restartReason(e);
                if (signalled.isPresent()) {
                    restartWhy = signalled.get();
                } else if (stopping) {
                    ledger.handOver(id, stream, "the product stopped during " + ledger.phaseOf(id));
                    return;
                } else if (e instanceof FencedOutException || !leases.isHeld(fence.get())) {
                    // another owner restarts it, or this instance holds a newer fence and restarts it below
                    log.warn("{}: rebuild {} lost its worker lease: {}", stream, id, e.getMessage());
                    restartWhy = "lost the worker lease: " + e.getMessage();
                } else if (transientWhy.isPresent()) {
                    log.warn("{}: rebuild {} attempt {} failed for a passing reason: {}", stream, id, attempt,
                            transientWhy.get());
                    restartWhy = transientWhy.get();
                } else {
                    log.error("{}: rebuild {} failed", stream, id, e);
                    ledger.failed(id, stream, e.getClass().getSimpleName() + ": " + e.getMessage());
                    return;
                }
            } finally {
                a.stopRenewing();
            }
            if (stopping || leases.hold(stream).isEmpty()) {
                // the row belongs to the lease's next holder now: leave it as it is
                ledger.handOver(id, stream, restartWhy);
                return;
            }
            if (attempt >= maxAttempts) {
                ledger.failed(id, stream, "gave up after " + attempt + " attempts: " + restartWhy);
                return;
            }
            log.warn("{}: rebuild {} restarts from a new export: {}", stream, id, restartWhy);
            ledger.restarted(id, stream, restartWhy);
        }
    }

    /** One attempt; what a failed step leaves is for {@link RetireStep#abandon}. */
    private void runSteps(Attempt a) throws Exception {
        ledger.phase(a, RebuildPhase.LEASING);
        steps.lease().pinRetention(a);
        ledger.phase(a, RebuildPhase.EXPORTING);
        AwaitExportStep.ReadyExport export = steps.export().awaitExport(a);
        ledger.phase(a, RebuildPhase.LOADING);
        steps.load().loadShadow(a, export);
        ledger.phase(a, RebuildPhase.CATCHING_UP);
        steps.catchUp().catchUp(a);
        ledger.phase(a, RebuildPhase.CUTTING_OVER);
        steps.retire().retire(a, steps.cutover().cutover(a));
    }

    /** Thrown by the controller for a rebuild id it does not know. */
    static ApiException notFound(String id) {
        return new ApiException(ProblemCode.NOT_FOUND, "no rebuild " + id);
    }
}
