package com.acme.catalog.resolver.evidence;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.concurrent.DaemonThreads;

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
    private volatile ScheduledExecutorService executor;

    EvidenceRetentionScheduler(EvidenceRetentionJob job, EvidenceRetentionRepository repository,
            EvidenceMetrics metrics, EvidenceProperties properties) {
        this.job = job;
        this.repository = repository;
        this.metrics = metrics;
        this.properties = properties;
    }

    @Override
    public void start() {
        executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("evidence-retention"));
        executor.execute(this::refreshGauge);
        if (properties.retention().enabled()) {
            long interval = properties.retention().interval().toMillis();
            executor.scheduleWithFixedDelay(this::run, interval, interval, TimeUnit.MILLISECONDS);
        }
    }

    private void refreshGauge() {
        try {
            metrics.missing(repository.countMissing(null));
        } catch (RuntimeException e) {
            log.warn("could not read the missing evidence count; the next retention run sets it", e);
        }
    }

    private void run() {
        try {
            job.run(null, "SCHEDULED");
        } catch (RuntimeException e) {
            log.warn("evidence retention run failed; the next one retries", e);
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService e = executor;
        executor = null;
        DaemonThreads.stop(e, Duration.ofSeconds(10));
    }

    /** Stops background database work as soon as the context starts closing. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public boolean isRunning() {
        return executor != null;
    }
}
