package com.acme.catalog.resolver.evidence;

import java.time.Duration;

import com.acme.catalog.resolver.periodic.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * Runs evidence retention every {@code evidence.retention.interval} (off with {@code evidence.retention.enabled=
 * false}) on a thread of its own, and sets the missing gauge from the database at start, so it is right before the
 * first run.
 */
@Component
class EvidenceRetentionScheduler implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

    private static final Logger log = LoggerFactory.getLogger(EvidenceRetentionScheduler.class);

    private final EvidenceRetentionJob job;
    private final EvidenceRetentionRepository repository;
    private final EvidenceMetrics metrics;
    private final EvidenceProperties properties;
    private volatile PeriodicTasks tasks;

    EvidenceRetentionScheduler(EvidenceRetentionJob job, EvidenceRetentionRepository repository,
            EvidenceMetrics metrics, EvidenceProperties properties) {
        this.job = job;
        this.repository = repository;
        this.metrics = metrics;
        this.properties = properties;
    }

    @Override
    public void start() {
        PeriodicTasks t = PeriodicTasks.onThread("evidence-retention");
        t.runSoon(() -> metrics.missing(repository.countMissing(null)),
                e -> log.warn("could not read the missing evidence count; the next retention run sets it", e));
        if (properties.retention().enabled()) {
            t.every(properties.retention().interval(), () -> job.run(null, "SCHEDULED"),
                    e -> log.warn("evidence retention run failed; the next one retries", e));
        }
        tasks = t;
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t != null) {
            t.stop(Duration.ofSeconds(10));
        }
    }

    /** Stops background database work as soon as the context starts closing. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public boolean isRunning() {
        return tasks != null;
    }
}
