package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * Status reads look only at what changed since the previous read of the stream, and still answer exactly what a
 * scan of every retained row answers. Min-age is 10 minutes here, so "ripe" needs a publish batch in the past.
 */
@TestPropertySource(properties = "retention.min-age=PT10M")
class RetentionStatusScanIT extends AbstractRetentionIT {

    @Autowired
    private RetentionStatusReader reader;
    @Autowired
    private MeterRegistry registry;

    @Test
    void incrementalReadsEqualFullScansThroughWritesPublishingRipeningAndPruning() {
        Random random = new Random(20261130L);
        StreamId s = new StreamId("acme", "scan-equal");
        StreamId other = new StreamId("acme", "scan-equal-other");
        write(s, 5);
        write(other, 3);
        long incrementalBefore = incrementalReads();
        for (int step = 0; step < 150; step++) {
            long cursor = reader.readFull(s, null).cursor();
            switch (random.nextInt(7)) {
                case 0, 1 -> write(s, 1 + random.nextInt(25));
                case 2 -> publishThrough(s, 1 + random.nextInt((int) cursor),
                        random.nextBoolean() ? Duration.ZERO : Duration.ofHours(1));
                case 3 -> ripen(s, 1 + random.nextInt((int) cursor));
                case 4 -> prune(s);
                case 5 -> {
                    write(other, 1 + random.nextInt(5));
                    publishThrough(other, reader.readFull(other, null).cursor(), Duration.ofHours(1));
                    prune(other);
                }
                default -> { } // two reads in a row: nothing changed
            }
            if (random.nextInt(4) > 0) { // sometimes several changes between two reads
                assertSameStatus(s);
                assertSameStatus(other);
            }
        }
        RetentionStatus end = reader.readFull(s, null);
        assertThat(end.prunedThrough()).isPositive();
        assertThat(end.retainedEvents()).isPositive();
        assertThat(incrementalReads() - incrementalBefore).as("reads that took the incremental path")
                .isGreaterThan(100);
    }

    @Test
    void aSecondReadScansOnlyTheRowsWrittenSinceTheFirst() {
        StreamId s = new StreamId("acme", "scan-cost");
        write(s, 1000);
        publishThrough(s, 600); // published now: not ripe for 10 minutes
        RetentionStatus first = reader.read(s, null);
        assertThat(first.retainedEvents()).isEqualTo(1000);

        double before = scannedRows();
        RetentionStatus again = reader.read(s, null);
        assertThat(scannedRows() - before).as("rows scanned by a read with nothing new").isLessThanOrEqualTo(2);
        assertThat(again.retainedEvents()).isEqualTo(1000);

        write(s, 50);
        before = scannedRows();
        RetentionStatus more = reader.read(s, null);
        assertThat(scannedRows() - before).as("rows scanned by a read after 50 new rows").isBetween(50.0, 52.0);
        assertThat(more.retainedEvents()).isEqualTo(1050);
        assertThat(more.blockedBy()).containsExactly(new Blocker(Blocker.Kind.UNPUBLISHED,
                jdbc.sql("SELECT event_id::text FROM outbox WHERE catalog = 'scan-cost' AND position = 601")
                        .query(String.class).single(), 601));

        ripen(s, 300); // 300 rows became old enough: the walk reads them, not the whole outbox
        before = scannedRows();
        RetentionStatus ripened = reader.read(s, null);
        assertThat(scannedRows() - before).as("rows scanned after 300 rows ripened").isBetween(300.0, 302.0);
        assertThat(ripened.ripeThrough()).isEqualTo(300);
        assertThat(prune(s)).isEqualTo(300);
        before = scannedRows();
        assertThat(reader.read(s, null).retainedEvents()).isEqualTo(750);
        assertThat(scannedRows() - before).as("rows scanned after pruning").isLessThanOrEqualTo(2);
    }

    @Test
    void concurrentReadsWhileWritingPublishingAndPruningEachAgreeWithTheirSnapshot() throws Exception {
        StreamId s = new StreamId("acme", "scan-concurrent");
        write(s, 10);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                readers.add(pool.submit(() -> {
                    int reads = 0;
                    while (writing.get() || reads == 0) {
                        RetentionStatus st = reader.read(s, null);
                        assertThat(st.retainedEvents()).isEqualTo(st.cursor() - st.prunedThrough());
                        assertThat(st.blockedBy()).noneMatch(b -> b.kind() == Blocker.Kind.GAP);
                        assertThat(st.ripeThrough()).isBetween(st.prunedThrough(), st.cursor());
                        reads++;
                    }
                    return reads;
                }));
            }
            for (int i = 0; i < 40; i++) {
                long last = write(s, 5);
                publishThrough(s, last - 3, Duration.ofHours(1));
                if (i % 5 == 4) {
                    prune(s);
                }
            }
            writing.set(false);
            for (Future<Integer> f : readers) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
        assertSameStatus(s);
    }

    @Test
    void theScanCountersAreExportedWithTheirKind() {
        StreamId s = new StreamId("acme", "scan-metrics");
        write(s, 5);
        reader.read(s, null);
        reader.read(s, null);
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(text.lines().filter(l -> l.matches(
                "resolver_retention_status_(scanned_rows_total|scan_seconds_count)\\{.*kind=\"(full|incremental)\".*"))
                .map(l -> l.replaceAll("\\{.*kind=\"(\\w+)\".*", ":$1")).distinct().sorted())
                .containsExactly("resolver_retention_status_scan_seconds_count:full",
                        "resolver_retention_status_scan_seconds_count:incremental",
                        "resolver_retention_status_scanned_rows_total:full",
                        "resolver_retention_status_scanned_rows_total:incremental");
    }

    /**
     * What time does to published rows: those through {@code position} are now an hour older. The batch that
     * published {@code position} is split there first, so rows above it keep their age.
     */
    private void ripen(StreamId s, long position) {
        jdbc.sql("""
                INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
                SELECT b.tenant, b.catalog, b.epoch, ?, b.published_at
                  FROM outbox_publish b
                 WHERE b.tenant = ? AND b.catalog = ?
                   AND b.through = (SELECT min(f.through) FROM outbox_publish f
                                     WHERE f.tenant = b.tenant AND f.catalog = b.catalog AND f.epoch = b.epoch
                                       AND f.through >= ?)
                ON CONFLICT DO NOTHING
                """).params(position, s.tenant(), s.catalog(), position).update();
        jdbc.sql("""
                UPDATE outbox_publish SET published_at = published_at - interval '1 hour'
                 WHERE tenant = ? AND catalog = ? AND through <= ?
                """).params(s.tenant(), s.catalog(), position).update();
    }

    private void assertSameStatus(StreamId s) {
        RetentionStatus incremental = reader.read(s, null);
        RetentionStatus full = reader.readFull(s, null);
        assertThat(incremental).usingRecursiveComparison().ignoringFields("observedAt").isEqualTo(full);
    }

    private long incrementalReads() {
        var timer = registry.find("resolver.retention.status.scan").tag("kind", "incremental").timer();
        return timer == null ? 0 : timer.count();
    }

    private double scannedRows() {
        return registry.find("resolver.retention.status.scanned.rows").counters().stream()
                .mapToDouble(Counter::count).sum();
    }
}
