package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.metrics.TenantTags;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * Cardinality (docs/metrics.md): writes to many streams leave one set of write meters per instance (or per
 * tenant with {@code resolver.metrics.per-tenant}), never one per stream; the only per-stream meter is the position
 * gauge.
 */
class StreamMetricsTest {

    private static final int STREAMS = 50;

    @Test
    void writesToManyStreamsShareOneSetOfWriteMetersPerInstance() {
        MeterRegistry registry = new SimpleMeterRegistry();
        StreamMetrics metrics = new StreamMetrics(registry, List.of(), TenantTags.perInstance());
        // registered before the first write: a counter at 0, an empty histogram
        assertThat(registry.get("resolver.writes").tag("outcome", "committed").counter().count()).isZero();
        assertThat(registry.get("resolver.write").tag("outcome", "committed").timer().count()).isZero();

        writeToManyStreams(metrics);

        for (Meter m : registry.getMeters()) {
            if (!m.getId().getName().equals("resolver.stream.position")) {
                assertThat(m.getId().getTag("tenant")).as(m.getId().toString()).isNull();
                assertThat(m.getId().getTag("catalog")).as(m.getId().toString()).isNull();
            }
        }
        assertThat(registry.get("resolver.writes").tag("outcome", "committed").counter().count())
                .isEqualTo(2.0 * STREAMS);
        assertThat(registry.get("resolver.write").tag("outcome", "committed").timer().count()).isEqualTo(STREAMS);
        assertThat(registry.get("resolver.write.retries").counter().count()).isEqualTo(STREAMS);
        assertThat(registry.find("resolver.stream.position").gauges()).hasSize(STREAMS);
    }

    @Test
    void perTenantMetersCarryTheTenantAndNeverTheCatalog() {
        MeterRegistry registry = new SimpleMeterRegistry();
        StreamMetrics metrics = new StreamMetrics(registry, List.of(), TenantTags.byTenant());
        assertThat(registry.find("resolver.writes").counters()).isEmpty();
        metrics.known(new StreamId("quiet", "c-0"));
        assertThat(registry.get("resolver.writes").tags("tenant", "quiet", "outcome", "committed").counter().count())
                .isZero();

        writeToManyStreams(metrics);

        for (Meter m : registry.getMeters()) {
            if (!m.getId().getName().equals("resolver.stream.position")) {
                assertThat(m.getId().getTag("tenant")).as(m.getId().toString()).isNotNull();
                assertThat(m.getId().getTag("catalog")).as(m.getId().toString()).isNull();
            }
        }
        for (String tenant : List.of("t0", "t1")) {
            Counter committed = registry.get("resolver.writes").tags("tenant", tenant, "outcome", "committed").counter();
            assertThat(committed.count()).isEqualTo(STREAMS);
        }
        assertThat(registry.find("resolver.write").tag("outcome", "committed").timers()).hasSize(3); // quiet, t0, t1
        assertThat(registry.find("resolver.stream.position").gauges()).extracting(Gauge::getId)
                .allSatisfy(id -> assertThat(id.getTag("catalog")).isNotNull());
    }

    /** Two writes to each of {@link #STREAMS} streams of two tenants, each with every kind of write measurement. */
    private static void writeToManyStreams(StreamMetrics metrics) {
        for (int i = 0; i < STREAMS; i++) {
            StreamId s = new StreamId("t" + (i % 2), "c-" + i);
            metrics.committed(s, List.of(new WriteResult(1, 1, 1, UUID.randomUUID(), 1),
                    new WriteResult(1, 2, 2, UUID.randomUUID(), 1)), 1_000_000);
            metrics.failed(s, 1_000);
            metrics.coalesced(s, 2);
            metrics.retried(s);
            metrics.queued(s, 1_000);
            metrics.waited(s, 1_000);
        }
    }
}
