package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * Retained bytes: a consumer that stops acknowledging holds the outbox, and the bytes it retains grow past a
 * (small) budget, measured from the database; once it catches up the pruner frees them. Retention's own rule is
 * unchanged: the budget is reported, never enforced, so nothing is pruned while the consumer holds it. Streams
 * below the per-stream threshold have no series of their own but count in the total.
 */
@TestPropertySource(properties = {"retention.status.enabled=true", "retention.status.refresh-interval=PT0.3S",
        "retention.bytes.budget=20KB", "retention.bytes.stream-threshold=2KB", "retention.bytes.measure-interval=PT0S"})
class RetainedBytesIT extends AbstractRetentionIT {

    @Test
    void aStuckConsumerGrowsTheRetainedBytesPastTheBudgetUntilItCatchesUp() {
        StreamId s = new StreamId("acme", "bytes-stuck");
        StreamId small = new StreamId("acme", "bytes-small");
        write(small, 1);
        jdbc.sql("""
                INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, registered_by)
                VALUES ('stuck', 'acme', 'bytes-stuck', 1, 0, 'token-9')
                """).update();
        write(s, 20);
        publishThrough(s, 20);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(bytes(s)).isEqualTo(outboxBytes(s)).isPositive());
        double early = bytes(s);
        assertThat(metric("resolver_retention_retained_bytes_budget")).isEqualTo(20 * 1024.0);
        assertThat(metric("resolver_retention_retained_bytes_all_streams")).isLessThan(20 * 1024.0);
        assertThat(metric("resolver_retention_retained_bytes", "catalog=\"bytes-small\"")).as("below the threshold")
                .isNaN();

        for (int i = 0; i < 10; i++) {
            long last = write(s, 20);
            publishThrough(s, last);
            assertThat(prune(s)).as("the budget is not enforced: the stuck consumer still holds").isZero();
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(bytes(s)).isEqualTo(outboxBytes(s)).isGreaterThan(early * 5);
            assertThat(metric("resolver_retention_retained_bytes_all_streams"))
                    .isGreaterThanOrEqualTo(outboxBytes(s) + outboxBytes(small))
                    .isGreaterThan(metric("resolver_retention_retained_bytes_budget"));
        });

        jdbc.sql("UPDATE retention_consumer SET durable_position = 220 WHERE consumer_id = 'stuck'").update();
        assertThat(prune(s)).isEqualTo(220);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(bytes(s)).as("nothing retained: no series").isNaN();
            assertThat(metric("resolver_retention_retained_bytes_all_streams"))
                    .isLessThan(metric("resolver_retention_retained_bytes_budget"));
        });
    }

    private double bytes(StreamId s) {
        return metric("resolver_retention_retained_bytes", "catalog=\"" + s.catalog() + "\"");
    }

    private long outboxBytes(StreamId s) {
        return jdbc.sql("SELECT coalesce(sum(pg_column_size(o.*)), 0) FROM outbox o WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    /** The first sample of {@code name} (exactly) whose labels contain all {@code labels}; NaN if none. */
    private double metric(String name, String... labels) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        for (String line : text.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
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
