package com.acme.catalog.product.rebuild;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * Throughput of rebuilds, per stream: {@code product_rebuild_loaded_rows_total} and
 * {@code product_rebuild_caught_up_events_total} count rows loaded from exports and events applied by catch-up
 * and cutover; {@code product_rebuild_load_rows_per_second} is the latest load's rows over its wall time (indexes
 * and attach included), {@code product_rebuild_catchup_events_per_second} the latest catch-up's events over its
 * wall time so far (page fetches included); {@code product_rebuild_phase} is the ordinal of the phase of the
 * stream's latest rebuild ({@link RebuildPhase}).
 */
@Component
class RebuildMetrics {

    private final MeterRegistry meters;
    private final Map<StreamId, Meters> streams = new ConcurrentHashMap<>();
    private final Map<StreamId, AtomicInteger> phaseGauges = new ConcurrentHashMap<>();

    RebuildMetrics(MeterRegistry meters) {
        this.meters = meters;
    }

    /** A load of {@code rows} took {@code nanos}. */
    void loaded(StreamId stream, long rows, long nanos) {
        Meters m = of(stream);
        m.loadedRows.increment(rows);
        m.loadRate.set(perSecond(rows, nanos));
    }

    /** {@code events} more were applied; the catch-up has applied {@code total} in {@code nanos} so far. */
    void caughtUp(StreamId stream, long events, long total, long nanos) {
        Meters m = of(stream);
        m.caughtUpEvents.increment(events);
        m.catchUpRate.set(perSecond(total, nanos));
    }

    /** {@code events} more were applied by the attempt's catch-up or cutover. */
    void caughtUp(Attempt a, int events) {
        a.caughtUpEvents += events;
        caughtUp(a.stream, events, a.caughtUpEvents, System.nanoTime() - a.catchUpStartNanos);
    }

    /** The stream's latest rebuild is in {@code phase} now. */
    void phase(StreamId stream, RebuildPhase phase) {
        phaseGauges.computeIfAbsent(stream, s -> {
            AtomicInteger value = new AtomicInteger(-1);
            Gauge.builder("product.rebuild.phase", value, AtomicInteger::get)
                    .description("phase of the stream's latest rebuild: 0 LEASING, 1 EXPORTING, 2 LOADING, "
                            + "3 CATCHING_UP, 4 CUTTING_OVER, 5 DONE, 6 FAILED, 7 ABORTED")
                    .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters);
            return value;
        }).set(phase.ordinal());
    }

    private static long perSecond(long n, long nanos) {
        return nanos <= 0 ? 0 : Math.round(n * 1e9 / nanos);
    }

    private Meters of(StreamId stream) {
        return streams.computeIfAbsent(stream, s -> new Meters(
                Counter.builder("product.rebuild.loaded.rows").description("rows loaded from exports by rebuilds")
                        .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters),
                Counter.builder("product.rebuild.caught.up.events")
                        .description("events applied by rebuild catch-ups and cutovers")
                        .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters),
                gauge("product.rebuild.load.rows.per.second", "rows per second of the latest rebuild load", s),
                gauge("product.rebuild.catchup.events.per.second",
                        "events per second of the latest rebuild catch-up", s)));
    }

    private AtomicLong gauge(String name, String description, StreamId s) {
        AtomicLong value = new AtomicLong();
        Gauge.builder(name, value, AtomicLong::get).description(description).tag("tenant", s.tenant())
                .tag("catalog", s.catalog()).register(meters);
        return value;
    }

    private record Meters(Counter loadedRows, Counter caughtUpEvents, AtomicLong loadRate, AtomicLong catchUpRate) {
    }
}
