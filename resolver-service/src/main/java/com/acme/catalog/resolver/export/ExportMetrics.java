package com.acme.catalog.resolver.export;

import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/** {@code resolver_export_seconds}: duration of each finished export, labelled by stream and outcome. */
@Component
class ExportMetrics {

    private final MeterRegistry registry;

    ExportMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void finished(StreamId s, ExportStatus outcome, long nanos) {
        Timer.builder("resolver.export").description("snapshot export duration, request to READY/ABORTED/FAILED")
                .tags("tenant", s.tenant(), "catalog", s.catalog(), "outcome", outcome.name())
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }
}
