package com.acme.catalog.resolver.stream;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * {@code resolver_stream_position}, {@code resolver_writes_total} and {@code resolver_write_seconds}, per stream.
 * The position gauge shows what this instance last committed or read; every instance converges on the database.
 */
@Component
public class StreamMetrics {

    private final MeterRegistry registry;
    private final Map<StreamId, AtomicLong> positions = new ConcurrentHashMap<>();

    public StreamMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Records a committed physical write transaction and its logical transactions. */
    public void committed(StreamId s, List<WriteResult> results, long nanos) {
        long events = results.stream().mapToLong(r -> r.lastPosition() - r.firstPosition() + 1).sum();
        counter(s, "committed").increment(results.size());
        timer(s, "committed").record(nanos, TimeUnit.NANOSECONDS);
        if (!results.isEmpty() && events > 0) {
            observePosition(s, results.get(results.size() - 1).lastPosition());
        }
    }

    /** Records a physical write transaction that rolled back. */
    public void failed(StreamId s, long nanos) {
        counter(s, "failed").increment();
        timer(s, "failed").record(nanos, TimeUnit.NANOSECONDS);
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

    private Counter counter(StreamId s, String outcome) {
        return Counter.builder("resolver.writes").description("logical write transactions")
                .tags("tenant", s.tenant(), "catalog", s.catalog(), "outcome", outcome).register(registry);
    }

    private Timer timer(StreamId s, String outcome) {
        return Timer.builder("resolver.write").description("physical write transaction time, lock wait included")
                .tags("tenant", s.tenant(), "catalog", s.catalog(), "outcome", outcome)
                .publishPercentileHistogram()
                .register(registry);
    }
}
