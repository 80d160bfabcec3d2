package com.acme.catalog.product.inbox;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * {@code product_applied_position}, {@code product_apply_lag_events}, {@code product_parked_events} (gauges of
 * the serving generation, set after each committed delivery and on every resync from the database), per stream
 * ({@code product_old_epoch_deliveries_total} is counted by {@code epoch.OldEpochAudit}).
 */
@Component
class InboxMetrics {

    private final MeterRegistry registry;
    private final Map<StreamId, StreamGauges> streams = new ConcurrentHashMap<>();

    private final Timer applyTime;
    private final Counter refusedUnknownStream;

    InboxMetrics(MeterRegistry registry) {
        this.registry = registry;
        // no tenant/catalog labels: the stream named by a refused delivery is the sender's choice
        this.refusedUnknownStream = Counter.builder("product.inbox.refused.unknown.stream")
                .description("deliveries refused because their stream is neither in PRODUCT_STREAMS nor served")
                .register(registry);
        this.applyTime = Timer.builder("product.inbox.apply")
                .description("one live delivery's transaction: lock, apply, save the cursor, commit")
                .publishPercentileHistogram().register(registry);
    }

    /** Records the time of one delivery's transaction (committed or rolled back). */
    void applied(long nanos) {
        applyTime.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Records a committed cursor of a serving generation and its held-event count. */
    void observe(GenerationCursor c, long heldEvents) {
        streams.computeIfAbsent(c.stream(), this::register).observe(c, heldEvents);
    }

    void refusedUnknownStream() {
        refusedUnknownStream.increment();
    }

    private StreamGauges register(StreamId s) {
        StreamGauges g = new StreamGauges();
        Gauge.builder("product.applied.position", g.applied, AtomicLong::get)
                .description("contiguous processed position of the serving generation (progress reported)")
                .tags("tenant", s.tenant(), "catalog", s.catalog()).register(registry);
        Gauge.builder("product.apply.lag.events", g.lag, AtomicLong::get)
                .description("highest position seen in deliveries minus the contiguous processed position")
                .tags("tenant", s.tenant(), "catalog", s.catalog()).register(registry);
        Gauge.builder("product.parked.events", g.parked, AtomicLong::get)
                .description("events held by the serving generation: early (PENDING) or waiting for a dependency")
                .tags("tenant", s.tenant(), "catalog", s.catalog()).register(registry);
        return g;
    }

    private static final class StreamGauges {
        final AtomicLong applied = new AtomicLong();
        final AtomicLong lag = new AtomicLong();
        final AtomicLong parked = new AtomicLong();
        private long epoch;
        private long generation;

        /** Newer generations and epochs replace older ones; within one, the applied position only rises. */
        synchronized void observe(GenerationCursor c, long held) {
            boolean sameGeneration = c.generationId() == generation && c.epoch() == epoch;
            if (sameGeneration && c.appliedPosition() < applied.get()) {
                return;
            }
            if (!sameGeneration && (c.epoch() < epoch || (c.epoch() == epoch && c.generationId() < generation))) {
                return;
            }
            epoch = c.epoch();
            generation = c.generationId();
            applied.set(c.appliedPosition());
            lag.set(c.lag());
            parked.set(held);
        }
    }
}
