package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The contract (docs/design.md §11): every named metric is registered when its service starts, a counter at 0 before its first increment.
 * The counters and histograms are per instance (docs/metrics.md), so they exist before any stream does and carry
 * no stream labels; a stream this instance never wrote to (only its cursor row exists: another instance wrote it)
 * gets its position gauge once the status refresh has seen it. The soonest lease's expiry is a gauge the
 * LeaseExpiringSoon alert reads.
 */
@TestPropertySource(properties = {"retention.status.enabled=true", "retention.status.refresh-interval=PT0.3S"})
class ContractMetersIT extends AbstractRetentionIT {

    @Test
    void theCountersAndHistogramsArePerInstanceAndAKnownStreamGetsItsPosition() {
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch, position) VALUES ('acme', 'm-known', 1, 0)")
                .update();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
            for (String series : List.of("resolver_leases_expired_total", "resolver_outbox_pruned_events_total",
                    "resolver_writes_total", "resolver_write_seconds_count", "resolver_export_seconds_count",
                    "resolver_leases_active", "resolver_unavailable_answers_total", "resolver_rollbacks_detected_total",
                    "resolver_epoch_rotations_total",
                    "resolver_high_water_marks_recorded_timestamp_seconds")) {
                assertThat(text.lines().filter(l -> l.startsWith(series + "{"))).as(series).isNotEmpty()
                        .noneMatch(l -> l.contains("tenant=") || l.contains("catalog="));
            }
            assertThat(text.lines().filter(l -> l.startsWith("resolver_stream_position{")
                    && l.contains("catalog=\"m-known\""))).singleElement().satisfies(l -> assertThat(l).endsWith(" 0.0"));
        });
    }

    @Test
    void theSoonestLeasesExpiryIsAGauge() {
        StreamId s = new StreamId("acme", "m-expiry");
        write(s, 1);
        Lease soon = retention.pinRetention(s, 1, Duration.ofSeconds(60), "soon");
        retention.pinRetention(s, 1, Duration.ofSeconds(600), "later");
        double expected = soon.expiresAt().toEpochMilli() / 1000.0;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
            assertThat(text.lines().filter(l -> l.startsWith("resolver_leases_next_expiry_timestamp_seconds{")
                    && l.contains("catalog=\"m-expiry\"")).map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))))
                    .singleElement().satisfies(v -> assertThat(v).isCloseTo(expected, org.assertj.core.data.Offset.offset(0.01)));
        });
    }
}
