package com.acme.catalog.product.rebuild;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.metrics.TenantTags;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.stereotype.Component;

/**
 * Rebuild metrics (docs/metrics.md "Metrics and cardinality"). Per stream only while this instance runs a rebuild
 * of it: {@code product_rebuild_phase}, the ordinal of its phase ({@link RebuildPhase}), removed when the rebuild
 * ends or is handed over. Per instance: {@code product_rebuilds_finished_total} by final phase ({@code outcome}
 * DONE, FAILED, ABORTED; each at 0 from start); {@code product_rebuild_loaded_rows_total} and
 * {@code product_rebuild_caught_up_events_total}, rows loaded from exports and events applied by catch-up and
 * cutover (per tenant with {@code product.metrics.per-tenant}); {@code product_rebuild_load_rows_per_second}, the
 * latest load's rows over its wall time (indexes and attach included), and
 * {@code product_rebuild_catchup_events_per_second}, the latest catch-up's events over its wall time so far (page
 * fetches included), of whichever rebuild on this instance reported last.
 */
@Component
class RebuildMetrics {

    private final MeterRegistry meters;
    private final TenantTags tenantTags;
    private final Map<Tags, Counters> counters = new ConcurrentHashMap<>();
    private final AtomicLong loadRate = new AtomicLong();
    private final AtomicLong catchUpRate = new AtomicLong();
    private final Map<RebuildPhase, Counter> finished = new EnumMap<>(RebuildPhase.class);
    /** Guarded by this: the phase gauges of the rebuilds this instance runs. */
    private final Map<StreamId, Running> running = new HashMap<>();

    RebuildMetrics(MeterRegistry meters, TenantTags tenantTags) {
        this.meters = meters;
        this.tenantTags = tenantTags;
        Gauge.builder("product.rebuild.load.rows.per.second", loadRate, AtomicLong::get)
                .description("rows per second of the latest rebuild load on this instance").register(meters);
        Gauge.builder("product.rebuild.catchup.events.per.second", catchUpRate, AtomicLong::get)
                .description("events per second of the latest rebuild catch-up on this instance").register(meters);
        for (RebuildPhase p : RebuildPhase.values()) {
            if (p.isFinal()) {
                finished.put(p, Counter.builder("product.rebuilds.finished")
                        .description("rebuilds this instance finished, by final phase").tag("outcome", p.name())
                        .register(meters));
            }
        }
        if (!tenantTags.isPerTenant()) {
            counters(Tags.empty());
        }
    }

    /** A load of {@code rows} took {@code nanos}. */
    void loaded(StreamId stream, long rows, long nanos) {
        counters(tenantTags.of(stream)).loadedRows.increment(rows);
        loadRate.set(perSecond(rows, nanos));
    }

    /** {@code events} more were applied; the catch-up has applied {@code total} in {@code nanos} so far. */
    void caughtUp(StreamId stream, long events, long total, long nanos) {
        counters(tenantTags.of(stream)).caughtUpEvents.increment(events);
        catchUpRate.set(perSecond(total, nanos));
    }

    /** The stream's rebuild on this instance is in {@code phase} now; a final phase ends its gauge and counts it. */
    synchronized void phase(StreamId stream, RebuildPhase phase) {
        if (phase.isFinal()) {
            left(stream);
            finished.get(phase).increment();
            return;
        }
        running.computeIfAbsent(stream, this::register).value.set(phase.ordinal());
    }

    /** This instance no longer runs the stream's rebuild (handed over): its phase gauge goes. */
    synchronized void left(StreamId stream) {
        Running r = running.remove(stream);
        if (r != null) {
            meters.remove(r.gauge);
        }
    }

    private Running register(StreamId s) {
        AtomicInteger value = new AtomicInteger(-1);
        Gauge gauge = Gauge.builder("product.rebuild.phase", value, AtomicInteger::get)
                .description("phase of the stream's rebuild while this instance runs it: 0 LEASING, 1 EXPORTING, "
                        + "2 LOADING, 3 CATCHING_UP, 4 CUTTING_OVER")
                .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters);
        return new Running(value, gauge);
    }

    private static long perSecond(long n, long nanos) {
        return nanos <= 0 ? 0 : Math.round(n * 1e9 / nanos);
    }

    private Counters counters(Tags tags) {
        return counters.computeIfAbsent(tags, t -> new Counters(
                Counter.builder("product.rebuild.loaded.rows").description("rows loaded from exports by rebuilds")
                        .tags(t).register(meters),
                Counter.builder("product.rebuild.caught.up.events")
                        .description("events applied by rebuild catch-ups and cutovers").tags(t).register(meters)));
    }

    private record Counters(Counter loadedRows, Counter caughtUpEvents) {
    }

    private record Running(AtomicInteger value, Gauge gauge) {
    }
}
