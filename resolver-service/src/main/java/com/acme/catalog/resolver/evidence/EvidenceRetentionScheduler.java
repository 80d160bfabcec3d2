package com.acme.catalog.resolver.evidence;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Runs evidence retention every {@code evidence.retention.interval} (off with {@code evidence.retention.enabled=
 * false}) on a thread of its own, and sets the missing gauge from the database at start, so it is right before the
 * first run.
 */
@Component
class EvidenceRetentionScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(EvidenceRetentionScheduler.class);

    private final EvidenceRetentionJob job;
    private final EvidenceRetentionRepository repository;
    private final EvidenceMetrics metrics;
    private final EvidenceProperties properties;

    EvidenceRetentionScheduler(EvidenceRetentionJob job, EvidenceRetentionRepository repository,
            EvidenceMetrics metrics, EvidenceProperties properties) {
        super("evidence-retention", 1);
        this.job = job;
        this.repository = repository;
        this.metrics = metrics;
        this.properties = properties;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.runSoon(() -> metrics.missing(repository.countMissing(null)),
                e -> log.warn("could not read the missing evidence count; the next retention run sets it", e));
        if (properties.retention().enabled()) {
            tasks.every(properties.retention().interval(), () -> job.run(null, "SCHEDULED"),
                    e -> log.warn("evidence retention run failed; the next one retries", e));
        }
    }
}
