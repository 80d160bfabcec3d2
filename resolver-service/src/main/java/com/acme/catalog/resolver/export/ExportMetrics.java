package com.acme.catalog.resolver.export;

import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportStatus;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * {@code resolver_export_seconds}: duration of each finished export, labelled by stream and outcome; a known
 * stream's {@code READY} series exists (count 0) before its first export.
 */
@Component
public class ExportMetrics {

    private final MeterRegistry registry;

    ExportMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers the stream's READY timer (count 0) if it is not yet. */
    public void known(StreamId s) {
        timer(s, ExportStatus.READY);
    }

    void finished(StreamId s, ExportStatus outcome, long nanos) {
        timer(s, outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(StreamId s, ExportStatus outcome) {
        return Timer.builder("resolver.export").description("snapshot export duration, request to READY/ABORTED/FAILED")
                .tags("tenant", s.tenant(), "catalog", s.catalog(), "outcome", outcome.name())
                .register(registry);
    }
}
