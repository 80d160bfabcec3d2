package com.acme.catalog.resolver.export;

import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.platform.metrics.TenantTags;
import com.acme.catalog.resolver.stream.StreamMeters;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * {@code resolver_export_seconds}: duration of each finished export, labelled by outcome, one timer per instance
 * or, with {@code resolver.metrics.per-tenant}, per tenant ({@link TenantTags}), never per stream. The
 * {@code READY} series exists (count 0) before the first export: per instance from start, per tenant once the
 * tenant is {@link #known}.
 */
@Component
public class ExportMetrics implements StreamMeters {

    private final MeterRegistry registry;
    private final TenantTags tenantTags;

    ExportMetrics(MeterRegistry registry, TenantTags tenantTags) {
        this.registry = registry;
        this.tenantTags = tenantTags;
        if (!tenantTags.isPerTenant()) {
            timer(Tags.empty(), ExportStatus.READY);
        }
    }

    /** Registers the READY timer (count 0) that times the stream's exports if it is not yet. */
    @Override
    public void known(StreamId s) {
        timer(tenantTags.of(s), ExportStatus.READY);
    }

    void finished(StreamId s, ExportStatus outcome, long nanos) {
        timer(tenantTags.of(s), outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(Tags tags, ExportStatus outcome) {
        return Timer.builder("resolver.export").description("snapshot export duration, request to READY/ABORTED/FAILED")
                .tags(tags).tag("outcome", outcome.name())
                .register(registry);
    }
}
