package com.acme.catalog.resolver.epoch;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.FailureText;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.PeriodicTasks;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.epoch.RotationJobRepository.Job;
import com.acme.catalog.resolver.epoch.StreamRotator.Failure;
import com.acme.catalog.resolver.epoch.StreamRotator.Outcome;
import com.acme.catalog.resolver.epoch.StreamRotator.Start;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Drives fleet rotation jobs on a thread of its own, on whichever instance claims them:
 * <ol>
 *   <li>every {@code rotation.poll-interval} (and at once after this instance created a job) look for the running
 *       job and claim it unless another instance holds an unexpired claim ({@code rotation.claim-ttl});</li>
 *   <li>rotate it in batches of {@code rotation.batch-size} streams, each one transaction of the resolver's database
 *       ({@link #batch}): the maintenance hold (a batch that finds maintenance off ends the job), the batch's pending
 *       rows locked, {@link StreamRotator} over them, their outcome recorded and the claim renewed as the last
 *       statement;</li>
 *   <li>when no stream is pending, end the job: {@code DONE}, or {@code FAILED} when any stream failed.</li>
 * </ol>
 * Restarts: a job whose driver died keeps its rows; its claim expires and the next poll of any instance resumes it
 * where it stopped, completing the epochs its last batch issued in the control store before dying (they carry the
 * job's id) instead of issuing them again. A batch that fails for a transient reason (either database out of reach)
 * is retried after a pause; one that fails otherwise is retried stream by stream, and a stream that fails alone is
 * recorded as failed, so one bad stream never stops the job.
 */
@Component
class RotationJobRunner implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RotationJobRunner.class);
    private static final Duration PAUSE = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final TransactionTemplate tx;
    private final MaintenanceSwitch maintenance;
    private final RotationJobRepository jobs;
    private final StreamRotator rotator;
    private final RotationProperties properties;
    private final RotationMetrics metrics;
    private final String owner = "rotation-" + ManagementFactory.getRuntimeMXBean().getName() + "/"
            + UUID.randomUUID();
    private volatile PeriodicTasks tasks;

    RotationJobRunner(TransactionTemplate tx, MaintenanceSwitch maintenance, RotationJobRepository jobs,
            StreamRotator rotator, RotationProperties properties, RotationMetrics metrics) {
        this.tx = tx;
        this.maintenance = maintenance;
        this.jobs = jobs;
        this.rotator = rotator;
        this.properties = properties;
        this.metrics = metrics;
    }

    @Override
    public void start() {
        PeriodicTasks t = PeriodicTasks.onThread("epoch-rotation");
        if (properties.enabled()) {
            t.every(properties.pollInterval(), this::runClaimable, RotationJobRunner::failed);
        }
        tasks = t;
    }

    /** Looks for a job to run as soon as the thread is free (a job was just created on this instance). */
    void runSoon() {
        PeriodicTasks t = tasks;
        if (t != null && properties.enabled()) {
            t.runSoon(this::runClaimable, RotationJobRunner::failed);
        }
    }

    /** Runs the running job if this instance can claim it; returns when it ended or the claim was lost. */
    void runClaimable() {
        Optional<Job> running = jobs.running();
        if (running.isEmpty() || !jobs.claim(running.get().rotationId(), owner, properties.claimTtl())) {
            return;
        }
        run(running.get(), owner);
    }

    /** Drives {@code job} as {@code driver} (which holds its claim) until it ended or the claim is lost. */
    void run(Job job, String driver) {
        log.info("fleet rotation {}: {} stream(s), {} rotated, {} failed so far; running it ({})", job.rotationId(),
                job.streams(), job.rotated(), job.failed(), job.reason());
        metrics.running(job);
        try {
            drive(job, driver);
        } finally {
            metrics.notRunning();
        }
    }

    private void drive(Job job, String driver) {
        Duration backoff = PAUSE;
        int size = properties.batchSize();
        while (true) {
            BatchResult r;
            try {
                r = batch(job, driver, size);
                backoff = PAUSE;
            } catch (LostClaim lost) {
                log.info("fleet rotation {}: claim lost to another instance; it goes on there", job.rotationId());
                return;
            } catch (RuntimeException e) {
                if (transientFailure(e)) {
                    log.warn("fleet rotation {}: a batch failed ({}); retrying in {}", job.rotationId(),
                            FailureText.detail(e, 300, "no reason given"), backoff);
                    sleep(backoff);
                    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF
                            : backoff.multipliedBy(2);
                    continue;
                }
                if (size > 1) {
                    log.warn("fleet rotation {}: a batch of {} failed ({}); its streams are retried one by one",
                            job.rotationId(), size, FailureText.detail(e, 300, "no reason given"));
                    size = 1;
                    continue;
                }
                if (!failAlone(job, driver, e)) {
                    return;
                }
                continue;
            }
            switch (r.kind()) {
                case ROTATED -> {
                    if (size == 1 && r.streams() > 0) {
                        size = properties.batchSize();
                    }
                }
                case STOPPED -> {
                    jobs.stopRunning("stopped: a batch found the resolver out of maintenance");
                    log.warn("fleet rotation {}: maintenance is off; the job is stopped with streams left",
                            job.rotationId());
                    return;
                }
                case NONE_PENDING -> {
                    Optional<String> status = jobs.finish(job.rotationId(), driver);
                    if (status.isPresent()) {
                        Job done = jobs.job(job.rotationId()).orElseThrow();
                        metrics.finished(status.get());
                        log.info("fleet rotation {} {}: {} stream(s) rotated, {} failed in {} s ({} streams/s)",
                                job.rotationId(), status.get(), done.rotated(), done.failed(),
                                Math.round(done.seconds() * 10) / 10.0, rate(done));
                        return;
                    }
                    if (jobs.job(job.rotationId()).filter(Job::isRunning).isEmpty()) {
                        return;
                    }
                    // another driver's batch still holds the last rows: wait for it
                    sleep(PAUSE);
                }
                default -> throw new IllegalStateException(r.kind().name());
            }
        }
    }

    /**
     * One batch in one transaction: maintenance hold, up to {@code size} pending streams locked, rotated, recorded,
     * claim renewed. Package-private for the race test, which drives one job from two threads.
     *
     * @throws LostClaim when {@code driver} no longer holds the job's claim (nothing of the batch commits)
     */
    BatchResult batch(Job job, String driver, int size) {
        long started = System.nanoTime();
        Outcome[] done = new Outcome[1];
        BatchResult r = tx.execute(status -> {
            if (!maintenance.holdAndRead()) {
                return new BatchResult(Kind.STOPPED, 0);
            }
            List<StreamId> batch = jobs.lockPending(job.rotationId(), size);
            if (batch.isEmpty()) {
                return new BatchResult(Kind.NONE_PENDING, 0);
            }
            Outcome o = rotator.rotate(batch, Start.RESTORED, job.rotationId(), job.reason(), job.requestedBy(),
                    null);
            if (!jobs.record(job.rotationId(), o, driver, properties.claimTtl())) {
                throw new LostClaim();
            }
            done[0] = o;
            return new BatchResult(Kind.ROTATED, batch.size());
        });
        if (done[0] != null) {
            rotator.afterCommit(done[0]);
            metrics.batch(done[0], System.nanoTime() - started);
            log.debug("fleet rotation {}: batch of {} committed ({} rotated, {} failed)", job.rotationId(),
                    r.streams(), done[0].rotated().size(), done[0].failures().size());
        }
        return r;
    }

    /**
     * The next pending stream failed alone: records it as failed in a transaction of its own.
     *
     * @return false when the claim was lost
     */
    private boolean failAlone(Job job, String driver, RuntimeException e) {
        log.error("fleet rotation {}: a stream failed on its own; recorded as failed", job.rotationId(), e);
        Boolean kept = tx.execute(status -> {
            List<StreamId> next = jobs.lockPending(job.rotationId(), 1);
            if (next.isEmpty()) {
                return true;
            }
            Failure f = new Failure(next.get(0), ProblemCode.INTERNAL, "the rotation failed: " + FailureText.detail(e, 300, "no reason given")
                    + "; if its epoch was issued in the control store the stream refuses writes with "
                    + "HISTORY_ROLLED_BACK until it is rotated by hand");
            return jobs.recordFailures(job.rotationId(), List.of(f), 0, driver, properties.claimTtl());
        });
        if (Boolean.TRUE.equals(kept)) {
            metrics.failedAlone();
        }
        return Boolean.TRUE.equals(kept);
    }

    private static boolean transientFailure(RuntimeException e) {
        if (e instanceof ApiException api) {
            return api.code() == ProblemCode.CONTROL_STORE_UNAVAILABLE || api.code() == ProblemCode.DATABASE_UNAVAILABLE;
        }
        return e instanceof DataAccessResourceFailureException || e instanceof TransientDataAccessException
                || e instanceof RecoverableDataAccessException;
    }

    static double rate(Job job) {
        long finished = job.rotated() + job.failed();
        return job.seconds() <= 0 ? 0 : Math.round(finished / job.seconds() * 10) / 10.0;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a fleet rotation waited", e);
        }
    }

    private static void failed(RuntimeException e) {
        log.warn("fleet rotation runner failed; the next poll retries: {}", e.toString());
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t != null) {
            t.stop(Duration.ofSeconds(10));
        }
    }

    @Override
    public boolean isRunning() {
        return tasks != null;
    }

    /** What one batch did. */
    enum Kind { ROTATED, NONE_PENDING, STOPPED }

    record BatchResult(Kind kind, int streams) {
    }

    /** The driver's claim was taken: its batch rolled back. */
    static final class LostClaim extends RuntimeException {
        LostClaim() {
            super("the fleet rotation's claim was taken by another instance", null, false, false);
        }
    }
}
