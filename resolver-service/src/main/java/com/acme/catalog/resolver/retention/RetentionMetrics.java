package com.acme.catalog.resolver.retention;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.StreamMeters;
import com.acme.catalog.resolver.stream.StreamMetrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * Retention metrics with the contract's names. The gauges are replaced wholesale from database snapshots
 * ({@link #publish}), so every instance reports the same values whoever pruned, leased or registered; the
 * counters count what this instance did (sum them across instances).
 *
 * <p>Per stream (docs/metrics.md "Metrics and cardinality"): always {@code resolver_retention_retained_events} and
 * {@code resolver_consumer_lag_events} (one per consumer of the open epoch); only while the stream's retention is
 * blocked, {@code resolver_retention_blocked} (one per blocking reason, at its count) and
 * {@code resolver_outbox_pruned_through} (where pruning is held); only while the stream has live leases,
 * {@code resolver_leases_next_expiry_timestamp_seconds}; only while the stream retains at least
 * {@code retention.bytes.stream-threshold}, {@code resolver_retention_retained_bytes}. Per instance:
 * {@code resolver_leases_active} (live leases of every stream), {@code resolver_leases_expired_total} and
 * {@code resolver_outbox_pruned_events_total}, at 0 from start; {@code resolver_retention_retained_bytes_all_streams}
 * (database-wide, from the last measurement) and {@code resolver_retention_retained_bytes_budget}.
 */
@Component
class RetentionMetrics {

    private final MeterRegistry registry;
    private final StreamMetrics streamMetrics;
    private final List<StreamMeters> streamMeters;
    private final MultiGauge prunedThrough;
    private final MultiGauge retainedEvents;
    private final MultiGauge blocked;
    private final MultiGauge consumerLag;
    private final AtomicLong leasesActive = new AtomicLong();
    private final Counter prunedEvents;
    private final Counter expiredLeases;
    private final MultiGauge leasesNextExpiry;
    private final MultiGauge retainedBytes;
    private final AtomicLong retainedBytesAllStreams = new AtomicLong();
    private final long streamBytesThreshold;
    private final Map<StreamId, Long> epochs = new ConcurrentHashMap<>();

    RetentionMetrics(MeterRegistry registry, StreamMetrics streamMetrics, List<StreamMeters> streamMeters,
            RetentionProperties properties) {
        this.registry = registry;
        this.streamMetrics = streamMetrics;
        this.streamMeters = List.copyOf(streamMeters);
        this.prunedThrough = MultiGauge.builder("resolver.outbox.pruned.through")
                .description("pruned-through P of the stream's open epoch, while its retention is blocked")
                .register(registry);
        this.retainedEvents = MultiGauge.builder("resolver.retention.retained.events")
                .description("outbox events retained above P in the open epoch").register(registry);
        this.blocked = MultiGauge.builder("resolver.retention.blocked")
                .description("things holding retention below the cursor, by reason (consumer, lease, "
                        + "unpublished, gap); a stream and reason only while it blocks").register(registry);
        this.consumerLag = MultiGauge.builder("resolver.consumer.lag.events")
                .description("cursor minus the consumer's durable position").register(registry);
        Gauge.builder("resolver.leases.active", leasesActive, AtomicLong::get)
                .description("live rebuild leases of the open epochs of every stream").register(registry);
        this.prunedEvents = Counter.builder("resolver.outbox.pruned.events")
                .description("outbox events deleted by the pruner").register(registry);
        this.expiredLeases = Counter.builder("resolver.leases.expired")
                .description("leases that expired without being released").register(registry);
        this.leasesNextExpiry = MultiGauge.builder("resolver.leases.next.expiry.timestamp.seconds")
                .description("expiry (Unix seconds) of the stream's soonest-expiring live lease; absent without "
                        + "leases (alert: minus time() below a threshold)").register(registry);
        this.retainedBytes = MultiGauge.builder("resolver.retention.retained.bytes")
                .description("bytes of the stream's retained outbox rows (every epoch), while at least "
                        + "retention.bytes.stream-threshold").register(registry);
        Gauge.builder("resolver.retention.retained.bytes.all.streams", retainedBytesAllStreams, AtomicLong::get)
                .description("bytes of the retained outbox rows of every stream (database-wide; "
                        + "alert RetainedBytesOverBudget)").register(registry);
        Gauge.builder("resolver.retention.retained.bytes.budget", properties.bytes().budget(), b -> b.toBytes())
                .description("retention.bytes.budget: what the retained outbox of every stream "
                        + "may hold before RetainedBytesOverBudget fires (not enforced)").register(registry);
        this.streamBytesThreshold = properties.bytes().streamThreshold().toBytes();
    }

    /**
     * Replaces every retention gauge with the given snapshots (one per stream); absent streams, and series whose
     * condition no longer holds (blocked, leased), disappear.
     */
    synchronized void publish(List<RetentionStatus> statuses) {
        List<MultiGauge.Row<?>> pruned = new ArrayList<>();
        List<MultiGauge.Row<?>> retained = new ArrayList<>();
        List<MultiGauge.Row<?>> blockedRows = new ArrayList<>();
        List<MultiGauge.Row<?>> lag = new ArrayList<>();
        long active = 0;
        List<MultiGauge.Row<?>> nextExpiry = new ArrayList<>();
        for (RetentionStatus st : statuses) {
            Tags stream = Tags.of("tenant", st.stream().tenant(), "catalog", st.stream().catalog());
            retained.add(MultiGauge.Row.of(stream, st.retainedEvents()));
            for (Blocker.Kind kind : Blocker.Kind.values()) {
                long count = st.blockedCount(kind);
                if (count > 0) {
                    blockedRows.add(MultiGauge.Row.of(stream.and("reason", kind.wire()), count));
                }
            }
            if (!st.blockedBy().isEmpty()) {
                pruned.add(MultiGauge.Row.of(stream, st.prunedThrough()));
            }
            for (RetentionStatus.ConsumerView c : st.consumers()) {
                if (c.epoch() == st.epoch()) {
                    lag.add(MultiGauge.Row.of(stream.and("consumer", c.consumerId()), c.lagEvents()));
                }
            }
            active += st.leases().size();
            st.leases().stream().map(RetentionStatus.LeaseView::expiresAt).min(Comparator.naturalOrder())
                    .ifPresent(at -> nextExpiry.add(MultiGauge.Row.of(stream, at.toEpochMilli() / 1000.0)));
            // with per-tenant write and export meters, the tenant's exist at 0 before its first write or export
            for (StreamMeters m : streamMeters) {
                m.known(st.stream());
            }
            Long previousEpoch = epochs.put(st.stream(), st.epoch());
            if (previousEpoch != null && previousEpoch != st.epoch()) {
                streamMetrics.resetPosition(st.stream(), st.cursor());
            } else {
                streamMetrics.observePosition(st.stream(), st.cursor());
            }
        }
        prunedThrough.register(pruned, true);
        retainedEvents.register(retained, true);
        blocked.register(blockedRows, true);
        consumerLag.register(lag, true);
        leasesActive.set(active);
        leasesNextExpiry.register(nextExpiry, true);
    }

    /**
     * Replaces the retained-bytes gauges with one measurement: the total of every stream, and a series for each
     * stream at or above the threshold (the others disappear).
     */
    synchronized void publishRetainedBytes(Map<StreamId, Long> bytesByStream) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        long total = 0;
        for (Map.Entry<StreamId, Long> e : bytesByStream.entrySet()) {
            total += e.getValue();
            if (e.getValue() > 0 && e.getValue() >= streamBytesThreshold) {
                rows.add(MultiGauge.Row.of(Tags.of("tenant", e.getKey().tenant(), "catalog", e.getKey().catalog()),
                        e.getValue()));
            }
        }
        retainedBytes.register(rows, true);
        retainedBytesAllStreams.set(total);
    }

    void pruned(long events) {
        prunedEvents.increment(events);
    }

    /**
     * One status read's pass over the retained outbox of a (stream, epoch): {@code kind} is {@code full} (every
     * row above P) or {@code incremental} (only what changed since the previous read).
     */
    void statusScanned(String kind, long nanos, long rows) {
        Timer.builder("resolver.retention.status.scan").description("retained-outbox scans of status reads")
                .tag("kind", kind).register(registry).record(nanos, TimeUnit.NANOSECONDS);
        Counter.builder("resolver.retention.status.scanned.rows")
                .description("outbox rows read by the scans of status reads").tag("kind", kind).register(registry)
                .increment(rows);
    }

    void leaseExpired() {
        expiredLeases.increment();
    }
}
