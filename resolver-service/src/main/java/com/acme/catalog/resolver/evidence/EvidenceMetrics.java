package com.acme.catalog.resolver.evidence;

import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * Evidence metrics, all registered at start (counters at 0), without tenant labels (the status endpoint breaks
 * them down by tenant): {@code resolver_evidence_missing} (artifacts flagged missing from the store, all tenants,
 * from the database, so every instance reports the same), {@code resolver_evidence_expired_total} (artifacts this
 * instance expired), intake outcomes and bytes, retention runs by outcome.
 */
@Component
class EvidenceMetrics {

    private final AtomicLong missing = new AtomicLong();
    private final Counter expired;
    private final Counter expiredBytes;
    private final Counter created;
    private final Counter deduplicated;
    private final Counter refused;
    private final Counter intakeBytes;
    private final Counter runsCompleted;
    private final Counter runsFailed;

    EvidenceMetrics(MeterRegistry registry) {
        Gauge.builder("resolver.evidence.missing", missing, AtomicLong::get)
                .description("evidence artifacts whose object is missing from the store (flagged, kept)")
                .register(registry);
        expired = Counter.builder("resolver.evidence.expired")
                .description("unreferenced evidence artifacts expired (rows, runs, claims and object deleted)")
                .register(registry);
        expiredBytes = Counter.builder("resolver.evidence.expired.bytes")
                .description("bytes of the expired evidence artifacts").register(registry);
        created = intake(registry, "created");
        deduplicated = intake(registry, "deduplicated");
        refused = intake(registry, "refused");
        intakeBytes = Counter.builder("resolver.evidence.intake.bytes")
                .description("bytes of evidence bodies stored by intake (deduplicated ones included)")
                .register(registry);
        runsCompleted = run(registry, "completed");
        runsFailed = run(registry, "failed");
    }

    private static Counter intake(MeterRegistry registry, String outcome) {
        return Counter.builder("resolver.evidence.intake").description("evidence intakes by outcome")
                .tag("outcome", outcome).register(registry);
    }

    private static Counter run(MeterRegistry registry, String outcome) {
        return Counter.builder("resolver.evidence.retention.runs").description("evidence retention runs by outcome")
                .tag("outcome", outcome).register(registry);
    }

    void received(boolean newArtifact, long bytes) {
        (newArtifact ? created : deduplicated).increment();
        intakeBytes.increment(bytes);
    }

    void refused() {
        refused.increment();
    }

    void expired(long bytes) {
        expired.increment();
        expiredBytes.increment(bytes);
    }

    void runFinished(boolean completed) {
        (completed ? runsCompleted : runsFailed).increment();
    }

    /** Sets the missing gauge from a database count. */
    void missing(long flagged) {
        missing.set(flagged);
    }
}
