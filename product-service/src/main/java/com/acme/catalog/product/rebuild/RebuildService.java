package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.GenerationRepository;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Runs rebuilds (docs/rebuild.md). Each attempt is one pass through {@link RebuildSteps}, one class per protocol step
 * (docs/design.md), each taking the previous step's immutable result and returning its own ({@link Reached}):
 * <ol>
 * <li>{@link LeaseStep}: learn the epoch, pin retention with a lease kept by one {@link LeaseKeeper} (step 2) →
 * {@link Pinned};</li>
 * <li>{@link AwaitExportStep}: request an export and wait until it is READY (steps 3–4) → {@link ReadyExport};</li>
 * <li>{@link LoadShadowStep}: load it into a BUILDING generation at W (step 5) → {@link LoadedShadow};</li>
 * <li>{@link CatchUpStep}: apply the retained events after W page by page (steps 6–7) → {@link CaughtUp};</li>
 * <li>{@link CutoverStep}: under the serving lock, apply the tail to the head H and swap (step 7) →
 * {@link CutOver};</li>
 * <li>{@link RetireStep}: retire the old generation, register the consumer at H, release the lease (step 7).</li>
 * </ol>
 * This class sequences them and decides restarts from the failure and the last result reached
 * ({@link RebuildLedger} records each decision): a restart signal (a 410 from the resolver, or a
 * {@link RestartRequired} of the steps' own) or a failure that says nothing about the data ({@link RestartPolicy})
 * drops the shadow, waits (backoff from {@code retry-initial-delay} doubling to {@code retry-max-delay}; the row shows
 * why and {@code nextRetryAt}) and restarts from a new export, for as long as {@code retry-budget} allows after the
 * rebuild's first retried failure; a failure about the data or a refusal drops the shadow, releases the lease and
 * leaves the rebuild FAILED at once. An attempt that met a newer epoch than its own
 * ({@link RestartPolicy.Failure#epochMoved}) restarts at once at the new epoch, without starting or using the retry
 * budget: a rotation is never a reason to give up (a second such failure at the same epoch is weighed like any other
 * signal). Every reason recorded is {@code CODE: sentence}, never an exception's class name.
 *
 * <p>A rebuild runs under this instance's worker lease of the stream ({@link WorkerLeases}): the load, every
 * catch-up page and the cutover each end with the fence check, so once another owner (or a newer fence) took the
 * lease none of them can commit. A rebuild whose worker lost the lease stays unfinished; the next holder of the
 * lease restarts it ({@link #resumeUnfinished}).
 *
 * <p>Longer than most classes here because it is the rebuild's one entry point for the controller, the recovery worker
 * and completeness (start, the reads of a rebuild's row and progress, the takeover) besides the attempt loop; what
 * each step does is in its step class.
 */
@Service
public class RebuildService {

    private static final Logger log = LoggerFactory.getLogger(RebuildService.class);

    private final RebuildRepository rebuilds;
    private final RebuildLedger ledger;
    private final WorkerLeases leases;
    private final RebuildSteps steps;
    private final RebuildProperties properties;
    private final RunningRebuilds running;
    private final RebuildProgresses progresses;
    private final GenerationRepository generations;
    private volatile boolean stopping;

    RebuildService(RebuildRepository rebuilds, RebuildLedger ledger, WorkerLeases leases, RebuildSteps steps,
            RebuildProperties properties, RebuildProgresses progresses, GenerationRepository generations) {
        this.rebuilds = rebuilds;
        this.generations = generations;
        this.progresses = progresses;
        this.ledger = ledger;
        this.leases = leases;
        this.steps = steps;
        this.properties = properties;
        if (properties.maxAttempts() != null) {
            log.warn("product.rebuild.max-attempts ({}) is deprecated and ignored: a rebuild retries failures that say "
                    + "nothing about the data for product.rebuild.retry-budget ({}), however many attempts that takes",
                    properties.maxAttempts(), properties.retryBudget());
        }
        this.running = new RunningRebuilds(properties.workers());
        leases.onAcquired(this::resumeUnfinished);
    }

    /** Why a rebuild was started: the {@code reason} of its row and of {@code GET /v1/rebuilds/{id}}. */
    public enum Reason {
        /** {@code POST /v1/rebuilds}. */
        OPERATOR,
        /** {@code POST /v1/rebuilds?allowOlderProjection=true}: the operator rebuilds back to an older version. */
        OPERATOR_OLDER_PROJECTION,
        /** The recovery worker (no serving generation, a new epoch, a 410, a diverged chain). */
        RECOVERY,
        /** The serving generation was built by an older projection version than this instance's. */
        PROJECTION_UPGRADE
    }

    /** {@link #start(StreamId, Reason)} for an operator's request. */
    public UUID start(StreamId stream) {
        return start(stream, Reason.OPERATOR);
    }

    /**
     * Starts a rebuild of {@code stream} under this instance's worker lease, or answers the one already running.
     * Never a rebuild back to an older projection version (docs/runbooks/projection-upgrade.md): when the stream's
     * serving generation, a BUILDING generation or an unfinished rebuild is of a newer version than this instance's,
     * it is refused, unless {@code why} is {@link Reason#OPERATOR_OLDER_PROJECTION}.
     *
     * @throws ApiException {@code WORKER_LEASE_HELD} while another instance holds the stream's worker lease;
     *         {@code PROJECTION_VERSION_OLDER} for a stream of a newer projection version
     */
    public UUID start(StreamId stream, Reason why) {
        WorkerFence fence = leases.hold(stream).orElseThrow(() -> new ApiException(ProblemCode.WORKER_LEASE_HELD,
                "the recovery worker lease of " + stream + " is held by " + leases.holder(stream).orElse("another "
                        + "instance") + ", which runs its rebuilds"));
        synchronized (this) {
            if (why != Reason.OPERATOR_OLDER_PROJECTION) {
                newerVersion(stream).ifPresent(newer -> {
                    throw new ApiException(ProblemCode.PROJECTION_VERSION_OLDER, stream + " has a generation of "
                            + "projection version " + newer + ", newer than this instance's version " + version()
                            + ": an older instance never rebuilds it back (docs/runbooks/projection-upgrade.md); "
                            + "to roll the projection back on purpose, stop every instance of the newer version "
                            + "first and ask again with allowOlderProjection=true");
                });
            }
            Optional<UUID> active = rebuilds.active(stream);
            if (active.isPresent()) {
                return active.get();
            }
            UUID id = UuidV7.next();
            ledger.started(id, stream, fence, why.name(), version());
            submit(id, stream);
            return id;
        }
    }

    /** @return this instance's projection version */
    private int version() {
        return generations.version().current();
    }

    /**
     * @return the newest projection version of the stream's serving generation, BUILDING generations and unfinished
     *         rebuilds when it is newer than this instance's; empty otherwise
     */
    public Optional<Integer> newerVersion(StreamId stream) {
        int newest = Math.max(generations.servingVersion(stream).orElse(0),
                Math.max(generations.newestBuildingVersion(stream).orElse(0), rebuilds.activeVersion(stream)
                        .orElse(0)));
        return newest > version() ? Optional.of(newest) : Optional.empty();
    }

    /** @return why the rebuild was started and the projection version it builds with */
    Optional<RebuildRepository.Origin> origin(UUID id) {
        return rebuilds.origin(id);
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
        running.newAttempt(id);
        steps.retire().retireBuilding(stream, running.generationsOf(stream));
        return restart(u.get(), fence.get(), transientFailure("ATTEMPT_INTERRUPTED",
                "a failure outside the attempt stopped it during " + u.get().phase()));
    }

    /**
     * Restarts an unfinished rebuild at once from a new export under {@code fence}, unless its retry budget is used
     * up; @return false when it gave up (FAILED)
     */
    private boolean restart(RebuildRepository.Unfinished u, WorkerFence fence, RestartPolicy.Failure why) {
        StreamId stream = fence.stream();
        steps.retire().releaseLeaseOf(stream, u);
        Instant now = Instant.now();
        Optional<String> exhausted = budgetExhausted(u.rebuildId(), u.attempt(), why, now);
        if (exhausted.isPresent()) {
            ledger.failed(u.rebuildId(), stream, BUDGET_EXHAUSTED, exhausted.get());
            return false;
        }
        ledger.restarted(u.rebuildId(), stream, why, now, null);
        ledger.worker(u.rebuildId(), fence);
        // a newer instance that took over a rebuild builds its generation with its own version
        rebuilds.claimVersion(u.rebuildId(), version());
        return true;
    }

    /** The code of a rebuild that retried for its whole budget. */
    static final String BUDGET_EXHAUSTED = "RETRY_BUDGET_EXHAUSTED";

    /**
     * @return the rebuild's {@code error} ({@code RETRY_BUDGET_EXHAUSTED: …}) when {@code retry-budget} has passed
     *         since its first retried failure (a zero budget retries nothing), empty while it may retry {@code why}
     */
    private Optional<String> budgetExhausted(UUID id, int attempts, RestartPolicy.Failure why, Instant now) {
        Duration budget = properties.retryBudget();
        Instant since = ledger.retrySince(id).orElse(now);
        if (budget.isZero() || !now.isBefore(since.plus(budget))) {
            return Optional.of(BUDGET_EXHAUSTED + ": gave up after " + attempts + " attempt(s), retried for "
                    + Duration.between(since, now).withNanos(0) + " (product.rebuild.retry-budget " + budget
                    + "); the last failure was " + why.text());
        }
        return Optional.empty();
    }

    private static RestartPolicy.Failure transientFailure(String code, String sentence) {
        return new RestartPolicy.Failure(RestartPolicy.Kind.TRANSIENT, code, sentence);
    }

    public Optional<Rebuild> find(UUID id) {
        return rebuilds.find(id);
    }

    /** @return why the rebuild retries (or last retried) and when its next attempt starts */
    Optional<RebuildRepository.Retry> retry(UUID id) {
        return rebuilds.retry(id);
    }

    /** @return {@code product.rebuild.retry-budget} */
    Duration retryBudget() {
        return properties.retryBudget();
    }

    /**
     * @return the rebuild's progress (docs/rebuild.md "Progress"): live from its attempt when it runs on this
     *         instance or ended here, else the counts its row holds
     */
    com.acme.catalog.contracts.rebuild.RebuildView.Progress progress(Rebuild r) {
        // an ended attempt's figures only for a rebuild that ended there: a handed-over one's are stale
        return progresses.of(r.rebuildId())
                .filter(p -> progresses.runs(r.rebuildId()) || r.phase().isFinal() && p.phase() == r.phase())
                .map(p -> p.view(progresses.lastCutover()))
                .orElseGet(() -> RebuildProgress.fromRow(r));
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
     * new export (or FAILED once their {@code retry-budget} is used up), their resolver leases released, and the
     * stream's BUILDING
     * generations that no rebuild of this process loads are retired.
     */
    void resumeUnfinished(WorkerFence fence) {
        StreamId stream = fence.stream();
        Set<Long> keep = running.generationsOf(stream);
        List<RebuildRepository.Unfinished> all = rebuilds.unfinished(stream).stream()
                .filter(u -> !running.runs(u.rebuildId())).toList();
        // an older instance never resumes (so never rebuilds back) a rebuild of a newer projection version, nor
        // retires its generation: an instance of that version takes the lease over and resumes it
        List<RebuildRepository.Unfinished> newer = all.stream()
                .filter(u -> u.projectionVersion() > version()).toList();
        List<RebuildRepository.Unfinished> orphans = all.stream()
                .filter(u -> u.projectionVersion() <= version()).toList();
        if (!newer.isEmpty() || generations.newestBuildingVersion(stream).orElse(0) > version()) {
            log.info("{}: left {} unfinished rebuild(s) of a newer projection version than {} to an instance of "
                    + "that version", stream, newer.size(), version());
            return;
        }
        List<Long> retired = steps.retire().retireBuilding(stream, keep);
        if (!orphans.isEmpty() || !retired.isEmpty()) {
            log.warn("{}: took over {} unfinished rebuild(s) under fence {}; retired BUILDING generation(s) {}",
                    stream, orphans.size(), fence.fence(), retired);
        }
        for (RebuildRepository.Unfinished u : orphans) {
            if (restart(u, fence, transientFailure("WORKER_STOPPED",
                    "the previous worker stopped during " + u.phase()))) {
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

    /**
     * Runs attempts until one is done, the rebuild fails, or it is left to the next holder of the worker lease;
     * between two attempts it waits (the row says why and until when).
     */
    private void run(UUID id, StreamId stream) {
        try {
            runAttempts(id, stream);
        } finally {
            progresses.ended(id);
        }
    }

    private void runAttempts(UUID id, StreamId stream) {
        int attempt = rebuilds.find(id).map(Rebuild::attempt).orElse(1);
        // the epoch of the last attempt restarted for an epoch change without using the budget
        long restartedFromEpoch = 0;
        for (;; attempt++) {
            Optional<WorkerFence> fence = stopping ? Optional.empty() : leases.hold(stream);
            if (fence.isEmpty()) {
                ledger.handOver(id, stream, transientFailure("WORKER_LEASE_LOST",
                        "this instance no longer holds the worker lease"));
                return;
            }
            ledger.worker(id, fence.get());
            RebuildRepository.Origin origin = rebuilds.origin(id).orElse(new RebuildRepository.Origin(null,
                    version()));
            Started started = Started.of(id, fence.get(), version(),
                    Reason.OPERATOR_OLDER_PROJECTION.name().equals(origin.reason()));
            running.newAttempt(id);
            progresses.track(started);
            Outcome outcome = runSteps(started);
            RestartPolicy.Failure why;
            try {
                if (outcome.failure() == null) {
                    return;
                }
                Exception e = outcome.failure();
                steps.retire().abandon(outcome.reached(), running.shadowOf(id));
                RestartPolicy.Failure failure = RestartPolicy.classify(e);
                if (failure.kind() == RestartPolicy.Kind.SIGNAL) {
                    why = failure;
                } else if (stopping) {
                    ledger.handOver(id, stream, transientFailure("PRODUCT_STOPPED",
                            "the product stopped during " + ledger.phaseOf(id)));
                    return;
                } else if (e instanceof FencedOutException || !leases.isHeld(fence.get())) {
                    // another owner restarts it, or this instance holds a newer fence and restarts it below
                    log.warn("{}: rebuild {} lost its worker lease: {}", stream, id, e.getMessage());
                    why = transientFailure("WORKER_LEASE_LOST", "lost the worker lease: "
                            + RestartPolicy.detail(e));
                } else if (failure.retried()) {
                    log.warn("{}: rebuild {} attempt {} failed for a passing reason: {}", stream, id, attempt,
                            failure.text());
                    why = failure;
                } else {
                    log.error("{}: rebuild {} failed: {}", stream, id, failure.text(), e);
                    ledger.failed(id, stream, failure.code(), failure.text());
                    return;
                }
            } finally {
                outcome.reached().lease().ifPresent(p -> p.keeper().close());
            }
            if (stopping || leases.hold(stream).isEmpty()) {
                // the row belongs to the lease's next holder now: leave it as it is
                ledger.handOver(id, stream, why);
                return;
            }
            OptionalLong epoch = outcome.epoch();
            if (why.epochMoved() && epoch.isPresent() && epoch.getAsLong() > restartedFromEpoch) {
                restartedFromEpoch = epoch.getAsLong();
                log.info("{}: rebuild {} of epoch {} restarts at once at the stream's new epoch: {}", stream, id,
                        restartedFromEpoch, why.text());
                ledger.restartedAtNewEpoch(id, stream, why);
                continue;
            }
            Instant now = Instant.now();
            Optional<String> exhausted = budgetExhausted(id, attempt, why, now);
            if (exhausted.isPresent()) {
                log.error("{}: rebuild {} failed: {}", stream, id, exhausted.get());
                ledger.failed(id, stream, BUDGET_EXHAUSTED, exhausted.get());
                return;
            }
            Duration delay = properties.retryDelay(attempt);
            Instant next = now.plus(delay);
            log.warn("{}: rebuild {} restarts from a new export at {} (in {}): {}", stream, id, next, delay,
                    why.text());
            ledger.restarted(id, stream, why, now, next);
            try {
                waitUntil(id, next);
            } catch (InterruptedException e) {
                ledger.handOver(id, stream, transientFailure("PRODUCT_STOPPED",
                        "the product stopped while the rebuild waited to retry after " + why.text()));
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** How often a waiting rebuild touches its row, so that it never looks abandoned (completeness' heartbeat). */
    private static final long WAIT_TOUCH_MILLIS = 15_000;

    /** Sleeps until {@code next}, touching the rebuild's row every {@link #WAIT_TOUCH_MILLIS}. */
    private void waitUntil(UUID id, Instant next) throws InterruptedException {
        for (long left = Duration.between(Instant.now(), next).toMillis(); left > 0;
                left = Duration.between(Instant.now(), next).toMillis()) {
            Thread.sleep(Math.min(left, WAIT_TOUCH_MILLIS));
            if (left > WAIT_TOUCH_MILLIS) {
                rebuilds.touch(id);
            }
        }
    }

    /**
     * How an attempt ended: the last step result it reached and, unless it is done, the failure that stopped it
     * (what the last result holds is for {@link RetireStep#abandon}).
     */
    private record Outcome(Reached reached, Exception failure) {

        /** @return the epoch the attempt rebuilt, once its lease pinned one */
        OptionalLong epoch() {
            return reached.lease().map(p -> OptionalLong.of(p.epoch())).orElse(OptionalLong.empty());
        }
    }

    /** One attempt, each step fed the previous one's result; never throws. */
    private Outcome runSteps(Started started) {
        Reached reached = started;
        try {
            ledger.phase(started, RebuildPhase.LEASING);
            Pinned pinned = steps.lease().pinRetention(started);
            reached = pinned;
            ledger.phase(started, RebuildPhase.EXPORTING);
            ReadyExport export = steps.export().awaitExport(pinned);
            reached = export;
            ledger.phase(started, RebuildPhase.LOADING);
            LoadedShadow loaded = steps.load().loadShadow(export, g -> running.shadowCreated(started.id(), g));
            running.shadowCreated(started.id(), loaded.generation());
            reached = loaded;
            ledger.phase(started, RebuildPhase.CATCHING_UP);
            CaughtUp caughtUp = steps.catchUp().catchUp(loaded);
            reached = caughtUp;
            ledger.phase(started, RebuildPhase.CUTTING_OVER);
            long cutoverStart = System.nanoTime();
            CutOver cutOver = steps.cutover().cutover(caughtUp);
            reached = cutOver;
            progresses.cutoverTook(Duration.ofNanos(System.nanoTime() - cutoverStart));
            steps.retire().retire(cutOver);
            ledger.phase(started, RebuildPhase.DONE);
            log.info("{}: rebuild {} done at position {}", started.stream(), started.id(), cutOver.target());
            return new Outcome(cutOver, null);
        } catch (Exception e) {
            return new Outcome(reached, e);
        } catch (Error e) {
            // not weighed: stop renewing the lease and let it escape
            reached.lease().ifPresent(p -> p.keeper().close());
            throw e;
        }
    }

    /** Thrown by the controller for a rebuild id it does not know. */
    static ApiException notFound(String id) {
        return new ApiException(ProblemCode.NOT_FOUND, "no rebuild " + id);
    }
}
