package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The scheduled pruner and status refresh: pruning happens without being asked, and the contract's gauges follow
 * the database, including rows this instance never wrote (another instance's consumer, cursor or lease). The
 * blocked and pruned-through series of a stream exist only while its retention is blocked; the counters and
 * {@code resolver_leases_active} are per instance (docs/metrics.md).
 */
@TestPropertySource(properties = {"retention.prune.enabled=true", "retention.prune.interval=PT0.3S",
        "retention.status.enabled=true", "retention.status.refresh-interval=PT0.3S"})
class RetentionSchedulerIT extends AbstractRetentionIT {

    @Test
    void theScheduledPrunerPrunesPublishedEventsWithoutBeingAsked() {
        StreamId s = new StreamId("acme", "m-sched");
        double prunedBefore = metric("resolver_outbox_pruned_events_total");
        write(s, 10);
        publishThrough(s, 10);
        await().atMost(Duration.ofSeconds(20)).until(() -> retention.prunedThrough(s, 1) == 10);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(metric("resolver_outbox_pruned_events_total")).isGreaterThanOrEqualTo(prunedBefore + 10);
            // nothing holds it: no per-stream pruned-through or blocked series
            assertThat(metric("resolver_outbox_pruned_through", "catalog=\"m-sched\"")).isNaN();
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-sched\"")).isNaN();
        });
    }

    @Test
    void gaugesFollowTheDatabaseIncludingOtherInstancesRows() {
        StreamId s = new StreamId("acme", "m-lag");
        write(s, 8);
        // another instance registered this consumer; this JVM never saw a request for it
        jdbc.sql("""
                INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, registered_by)
                VALUES ('elsewhere', 'acme', 'm-lag', 1, 2, 'token-9')
                """).update();
        // another instance wrote a stream (cursor only; its outbox rows are missing: a gap)
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch, position) VALUES ('acme', 'm-foreign', 1, 5)")
                .update();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(metric("resolver_consumer_lag_events", "catalog=\"m-lag\"", "consumer=\"elsewhere\""))
                    .isEqualTo(6.0);
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-lag\"", "reason=\"consumer\"")).isEqualTo(1.0);
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-lag\"", "reason=\"unpublished\""))
                    .isEqualTo(1.0);
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-lag\"", "reason=\"lease\"")).isNaN();
            assertThat(metric("resolver_outbox_pruned_through", "catalog=\"m-lag\"")).isZero();
            assertThat(metric("resolver_retention_retained_events", "catalog=\"m-lag\"")).isEqualTo(8.0);
            assertThat(metric("resolver_stream_position", "catalog=\"m-foreign\"")).isEqualTo(5.0);
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-foreign\"", "reason=\"gap\"")).isEqualTo(1.0);
        });

        publishThrough(s, 8);
        jdbc.sql("UPDATE retention_consumer SET durable_position = 8 WHERE consumer_id = 'elsewhere'").update();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(prunedThroughInDb(s)).isEqualTo(8);
            assertThat(metric("resolver_consumer_lag_events", "catalog=\"m-lag\"", "consumer=\"elsewhere\"")).isZero();
            // no longer blocked: its blocked and pruned-through series are gone
            assertThat(metric("resolver_retention_blocked", "catalog=\"m-lag\"")).isNaN();
            assertThat(metric("resolver_outbox_pruned_through", "catalog=\"m-lag\"")).isNaN();
            assertThat(metric("resolver_retention_retained_events", "catalog=\"m-lag\"")).isZero();
        });

        jdbc.sql("DELETE FROM retention_consumer WHERE consumer_id = 'elsewhere'").update();
        await().atMost(Duration.ofSeconds(20)).until(() ->
                Double.isNaN(metric("resolver_consumer_lag_events", "consumer=\"elsewhere\"")));
    }

    @Test
    void leasesThatExpireUnreleasedAreCountedOnceAndActiveLeasesAreGauged() throws Exception {
        StreamId s = new StreamId("acme", "m-leases");
        double expiredBefore = metric("resolver_leases_expired_total");
        write(s, 2);
        retention.pinRetention(s, 1, Duration.ofSeconds(1), "expires");
        retention.pinRetention(s, 1, Duration.ofSeconds(300), "stays");
        Lease released = retention.pinRetention(s, 1, Duration.ofSeconds(1), "released");
        retention.release(released.leaseId());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            // per instance: this class's other tests take no leases
            assertThat(metric("resolver_leases_expired_total")).isEqualTo(expiredBefore + 1);
            assertThat(metric("resolver_leases_active")).isEqualTo(1.0);
            assertThat(metric("resolver_leases_next_expiry_timestamp_seconds", "catalog=\"m-leases\"")).isPositive();
        });
        Thread.sleep(1000); // several more refresh cycles: still counted once
        assertThat(metric("resolver_leases_expired_total")).isEqualTo(expiredBefore + 1);
    }

    /** The value of the first Prometheus sample of {@code name} whose labels contain all {@code labels}; NaN if none. */
    private double metric(String name, String... labels) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        for (String line : text.split("\n")) {
            if (!line.startsWith(name + "{")) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= line.contains(l);
            }
            if (all) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }
}
