package com.acme.catalog.resolver.stream;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.metrics.TenantTags;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * {@code resolver_stream_position}, per stream; {@code resolver_writes_total} and {@code resolver_write_seconds}, and
 * the write coalescer's {@code resolver_write_coalesced_transactions} (logical transactions per physical commit),
 * {@code resolver_write_retries_total} (physical transactions retried after a member failed),
 * {@code resolver_write_queue_seconds} (time a write waited for its physical transaction to start) and
 * {@code resolver_write_coalescing_wait_seconds} (waits of busy streams' leaders for companions), per instance or,
 * with {@code resolver.metrics.per-tenant}, per tenant ({@link TenantTags}): never per stream, whose histograms
 * would cost ~250 series each. The per-instance meters exist from construction; a tenant's from {@link #known} or
 * its first write. The position gauge shows what this instance last committed or read; every instance converges on
 * the database.
 */
@Component
public class StreamMetrics implements StreamMeters {

    private final MeterRegistry registry;
    private final List<CommitObserver> observers;
    private final Map<StreamId, AtomicLong> positions = new ConcurrentHashMap<>();
    private final TenantTags tenantTags;
    private final Map<Tags, Meters> meters = new ConcurrentHashMap<>();

    /** Per-instance meters, no commit observers. */
    public StreamMetrics(MeterRegistry registry) {
        this(registry, List.of(), TenantTags.perInstance());
    }

    @Autowired
    public StreamMetrics(MeterRegistry registry, List<CommitObserver> observers, TenantTags tenantTags) {
        this.registry = registry;
        this.observers = List.copyOf(observers);
        this.tenantTags = tenantTags;
        if (!tenantTags.isPerTenant()) {
            meters.put(Tags.empty(), register(Tags.empty()));
        }
    }

    /**
     * Records a committed physical write transaction and its logical transactions, and tells the
     * {@link CommitObserver}s (the high-water mark recorder) where the stream now stands. Every path that commits
     * a physical write transaction calls this once, after the commit.
     */
    public void committed(StreamId s, List<WriteResult> results, long nanos) {
        Meters m = meters(s);
        m.committed.increment(results.size());
        m.committedTime.record(nanos, TimeUnit.NANOSECONDS);
        if (!results.isEmpty()) {
            // an empty last transaction ends at the position before it, which is committed as well
            WriteResult last = results.get(results.size() - 1);
            observePosition(s, last.lastPosition());
            for (CommitObserver o : observers) {
                o.committed(s, last.epoch(), last.lastPosition());
            }
        }
    }

    /**
     * Registers the write meters (counters at 0, empty histograms) that count the stream's writes if they are not
     * yet: with per-tenant meters, a tenant known from the database shows {@code resolver_writes_total} and
     * {@code resolver_write_seconds} before this instance's first write to it.
     */
    @Override
    public void known(StreamId s) {
        meters(s);
    }

    /** Records a physical write transaction that rolled back. */
    public void failed(StreamId s, long nanos) {
        Meters m = meters(s);
        m.failed.increment();
        m.failedTime.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Records how many logical transactions one coalesced physical commit carried. */
    void coalesced(StreamId s, int transactions) {
        meters(s).coalesced.record(transactions);
    }

    /** Records a physical transaction retried because a member failed. */
    void retried(StreamId s) {
        meters(s).retries.increment();
    }

    /** Records how long a write waited in the coalescing queue before its physical transaction started. */
    void queued(StreamId s, long nanos) {
        meters(s).queue.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Records how long a busy stream's leader waited for companions before its physical transaction. */
    void waited(StreamId s, long nanos) {
        meters(s).waits.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Records a committed position seen for the stream; the gauge never moves backwards within an epoch. */
    public void observePosition(StreamId s, long position) {
        positions.computeIfAbsent(s, this::registerGauge).accumulateAndGet(position, Math::max);
    }

    /** Resets the gauge when a new epoch starts the stream over at 0. */
    public void resetPosition(StreamId s, long position) {
        positions.computeIfAbsent(s, this::registerGauge).set(position);
    }

    private AtomicLong registerGauge(StreamId s) {
        AtomicLong value = new AtomicLong();
        Gauge.builder("resolver.stream.position", value, AtomicLong::get)
                .description("committed position of the stream's open epoch")
                .tags("tenant", s.tenant(), "catalog", s.catalog())
                .register(registry);
        return value;
    }

    private Meters meters(StreamId s) {
        Tags tags = tenantTags.of(s);
        Meters m = meters.get(tags);
        return m != null ? m : meters.computeIfAbsent(tags, this::register);
    }

    private Meters register(Tags tags) {
        return new Meters(counter(tags, "committed"), counter(tags, "failed"), timer(tags, "committed"),
                timer(tags, "failed"),
                DistributionSummary.builder("resolver.write.coalesced.transactions")
                        .description("logical write transactions per physical commit")
                        .tags(tags)
                        .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128)
                        .register(registry),
                Counter.builder("resolver.write.retries")
                        .description("physical write transactions retried after one of their writes failed")
                        .tags(tags).register(registry),
                Timer.builder("resolver.write.queue")
                        .description("time a write waited for the physical transaction that carries it to start")
                        .tags(tags)
                        .publishPercentileHistogram()
                        .register(registry),
                Timer.builder("resolver.write.coalescing.wait")
                        .description("time a busy stream's leader waited for more writes before committing"
                                + " (resolver.write.coalescing.max-wait); one per wait")
                        .tags(tags)
                        .register(registry));
    }

    private Counter counter(Tags tags, String outcome) {
        return Counter.builder("resolver.writes").description("logical write transactions")
                .tags(tags).tag("outcome", outcome).register(registry);
    }

    private Timer timer(Tags tags, String outcome) {
        return Timer.builder("resolver.write").description("physical write transaction time, lock wait included")
                .tags(tags).tag("outcome", outcome)
                .publishPercentileHistogram()
                .register(registry);
    }

    private record Meters(Counter committed, Counter failed, Timer committedTime, Timer failedTime,
            DistributionSummary coalesced, Counter retries, Timer queue, Timer waits) {
    }
}
