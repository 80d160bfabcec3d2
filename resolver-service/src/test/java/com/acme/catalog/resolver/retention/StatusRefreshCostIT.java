package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The periodic retention status refresh costs what changed, not the number of streams (docs/streams.md): after one
 * refresh, another reads no stream's status; a write, a consumer's progress or a lease (and its expiry) make exactly
 * that stream's status be read again. Quiet streams keep their gauges.
 */
class StatusRefreshCostIT extends AbstractRetentionIT {

    @Autowired
    RetentionStatusRefresher refresher;
    @Autowired
    MeterRegistry meters;

    @Test
    void aRefreshReadsOnlyTheStreamsWhoseStatusCouldHaveChanged() throws Exception {
        for (int i = 0; i < 50; i++) {
            write(new StreamId("cost", "s" + i), 2);
        }
        assertThat(refresher.refresh()).isGreaterThanOrEqualTo(50);
        assertThat(refresher.refresh()).as("nothing changed").isZero();

        write(new StreamId("cost", "s7"), 1);
        assertThat(refresher.refresh()).as("one write").isEqualTo(1);

        jdbc.sql("""
                INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, registered_by)
                VALUES ('reader', 'cost', 's8', 1, 0, 'token-1')
                """).update();
        assertThat(refresher.refresh()).as("a registration").isEqualTo(1);
        jdbc.sql("UPDATE retention_consumer SET durable_position = 1 WHERE consumer_id = 'reader'").update();
        assertThat(refresher.refresh()).as("progress").isEqualTo(1);

        retention.pinRetention(new StreamId("cost", "s9"), 1, Duration.ofSeconds(1), "test", "token-1");
        assertThat(refresher.refresh()).as("a lease").isEqualTo(1);
        Thread.sleep(1200);
        assertThat(refresher.refresh()).as("its expiry").isEqualTo(1);
        assertThat(refresher.refresh()).isZero();

        // the quiet streams' gauges are still published from what was read before
        assertThat(meters.get("resolver.retention.retained.events").tags("tenant", "cost", "catalog", "s3").gauge()
                .value()).isEqualTo(2.0);
    }

    @Test
    void retainedBytesAreMeasuredAtMostOncePerMeasureInterval() {
        StreamId s = new StreamId("cost", "bytes");
        write(s, 5);
        refresher.refresh();
        double first = meters.get("resolver.retention.retained.bytes.all.streams").gauge().value();
        assertThat(first).isPositive();
        write(s, 50);
        refresher.refresh();
        assertThat(meters.get("resolver.retention.retained.bytes.all.streams").gauge().value())
                .as("not measured again within retention.bytes.measure-interval (PT1M)").isEqualTo(first);
    }
}
