package com.acme.catalog.resolver.epoch;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.resolver.epoch.RotationJobRepository.Job;
import com.acme.catalog.resolver.epoch.StreamRotator.Outcome;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * Fleet rotation progress, per instance and without stream labels (registered at start):
 * {@code resolver_epoch_rotation_running} (1 while this instance drives a job),
 * {@code resolver_epoch_rotation_job_streams} and {@code resolver_epoch_rotation_job_streams_finished} (the driven job's
 * streams and how many of them are rotated or failed, as of its last batch; 0 when none is driven),
 * {@code resolver_epoch_rotation_streams_total{outcome="rotated|failed"}} (streams this instance's batches
 * finished), {@code resolver_epoch_rotation_batch_seconds} (time per batch) and
 * {@code resolver_epoch_rotation_jobs_total{status="DONE|FAILED"}} (jobs this instance ended).
 */
@Component
class RotationMetrics {

    private final AtomicLong running = new AtomicLong();
    private final AtomicLong streams = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final Counter rotated;
    private final Counter failed;
    private final Counter done;
    private final Counter failedJobs;
    private final Timer batches;

    RotationMetrics(MeterRegistry registry) {
        Gauge.builder("resolver.epoch.rotation.running", running, AtomicLong::get)
                .description("1 while this instance drives a fleet rotation job").register(registry);
        Gauge.builder("resolver.epoch.rotation.job.streams", streams, AtomicLong::get)
                .description("streams of the fleet rotation this instance drives; 0 when none").register(registry);
        Gauge.builder("resolver.epoch.rotation.job.streams.finished", finished, AtomicLong::get)
                .description("streams of the driven fleet rotation rotated or failed so far").register(registry);
        rotated = Counter.builder("resolver.epoch.rotation.streams").tag("outcome", "rotated")
                .description("streams this instance's fleet rotation batches rotated").register(registry);
        failed = Counter.builder("resolver.epoch.rotation.streams").tag("outcome", "failed")
                .description("streams this instance's fleet rotation batches could not rotate").register(registry);
        done = Counter.builder("resolver.epoch.rotation.jobs").tag("status", "DONE")
                .description("fleet rotation jobs this instance ended").register(registry);
        failedJobs = Counter.builder("resolver.epoch.rotation.jobs").tag("status", "FAILED")
                .description("fleet rotation jobs this instance ended").register(registry);
        batches = Timer.builder("resolver.epoch.rotation.batch").description("one fleet rotation batch")
                .register(registry);
    }

    void running(Job job) {
        running.set(1);
        streams.set(job.streams());
        finished.set(job.rotated() + job.failed());
    }

    void notRunning() {
        running.set(0);
        streams.set(0);
        finished.set(0);
    }

    void batch(Outcome o, long nanos) {
        rotated.increment(o.rotated().size());
        failed.increment(o.failures().size());
        finished.addAndGet(o.rotated().size() + o.failures().size());
        batches.record(nanos, TimeUnit.NANOSECONDS);
    }

    void failedAlone() {
        failed.increment();
        finished.incrementAndGet();
    }

    void finished(String status) {
        ("DONE".equals(status) ? done : failedJobs).increment();
    }
}
