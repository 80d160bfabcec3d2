package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * The pruner with a real min-age (1 h) and small batches (7): only a gapless prefix of published, old-enough
 * events goes, in bounded batches, without ever waiting for the cursor row writers lock.
 */
@TestPropertySource(properties = {"retention.min-age=PT1H", "retention.prune.batch-size=7"})
class OutboxPrunerIT extends AbstractRetentionIT {

    static final Duration OLD = Duration.ofHours(2);

    @Autowired
    DataSource dataSource;

    @Test
    void prunesOnlyPublishedEventsOlderThanMinAge() {
        StreamId s = new StreamId("acme", "p-age");
        write(s, 30);
        publishThrough(s, 10, OLD);
        publishThrough(s, 20, Duration.ofMinutes(10));

        Response r = post("/v1/retention/prune", "op", Map.of("tenant", "acme", "catalog", "p-age"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.number("pruned")).isEqualTo(10);
        assertThat(r.number("prunedThrough")).isEqualTo(10);
        assertThat(outboxPositions(s)).first().isEqualTo(11L);
        assertThat(r.body().path("blockedBy")).hasSize(1);
        assertThat(r.body().path("blockedBy").get(0).path("kind").stringValue()).isEqualTo("unpublished");
        assertThat(r.body().path("blockedBy").get(0).path("position").asLong()).isEqualTo(21);
        assertThat(r.body().path("blockedBy").get(0).path("id").stringValue()).isEqualTo(eventId(s, 21));

        Response status = get("/v1/retention/streams/acme/p-age", "op");
        assertThat(status.number("ripeThrough")).isEqualTo(10);
        assertThat(status.number("retainedEvents")).isEqualTo(20);
        assertThat(status.text("minAge")).isEqualTo("PT1H");
    }

    @Test
    void aGapProtectsTheTail() {
        StreamId s = new StreamId("acme", "p-gap");
        write(s, 20);
        publishThrough(s, 20, OLD);
        jdbc.sql("DELETE FROM outbox WHERE tenant = 'acme' AND catalog = 'p-gap' AND position = 12").update();

        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(11);
        assertThat(outboxPositions(s)).startsWith(13L, 14L).hasSize(8);
        Response status = get("/v1/retention/streams/acme/p-gap", "op");
        assertThat(status.body().path("blockedBy")).hasSize(1);
        assertThat(status.body().path("blockedBy").get(0).path("kind").stringValue()).isEqualTo("gap");
        assertThat(status.body().path("blockedBy").get(0).path("position").asLong()).isEqualTo(12);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(11);
    }

    @Test
    void prunesInBoundedBatchesWhileAWriterHoldsTheCursorRow() throws Exception {
        StreamId s = new StreamId("acme", "p-batches");
        write(s, 50);
        publishThrough(s, 50, OLD);
        String cursorBefore = cursorRowVersion(s);

        try (Connection writerTx = dataSource.getConnection()) {
            writerTx.setAutoCommit(false);
            try (Statement st = writerTx.createStatement()) {
                st.execute("SELECT * FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'p-batches' FOR UPDATE");
            }
            var outcome = CompletableFuture.supplyAsync(() -> pruner.prune(s, 1)).get(20, TimeUnit.SECONDS);
            assertThat(outcome.pruned()).isEqualTo(50);
            assertThat(outcome.batches()).isEqualTo(8); // 7 full batches of 7, then one of 1
            assertThat(outcome.prunedThrough()).isEqualTo(50);
            writerTx.rollback();
        }
        assertThat(cursorRowVersion(s)).isEqualTo(cursorBefore);
        assertThat(outboxPositions(s)).isEmpty();
    }

    @Test
    void expiredAndReleasedLeasesNoLongerHoldRetentionButALiveOneDoes() throws Exception {
        StreamId s = new StreamId("acme", "p-leases");
        write(s, 12);
        Lease expiring = retention.pinRetention(s, 1, Duration.ofSeconds(1), "expiring");
        Lease released = retention.pinRetention(s, 1, Duration.ofSeconds(300), "released");
        retention.release(released.leaseId());
        publishThrough(s, 6, OLD);
        Thread.sleep(1200);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(6);

        Lease live = retention.pinRetention(s, 1, Duration.ofSeconds(300), "live");
        assertThat(live.pin()).isEqualTo(6);
        publishThrough(s, 12, OLD);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(6);
        assertThat(expiring.pin()).isZero();
    }

    @Test
    void pruningWithoutABodyCoversEveryStreamAndReportsEach() {
        StreamId a = new StreamId("acme", "p-all-a");
        StreamId b = new StreamId("globex", "p-all-b");
        write(a, 3);
        write(b, 4);
        publishThrough(a, 3, OLD);
        publishThrough(b, 2, OLD);
        Response r = post("/v1/retention/prune", "op", null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().path("prunedThrough").isNull()).isTrue();
        assertThat(retention.prunedThrough(a, 1)).isEqualTo(3);
        assertThat(retention.prunedThrough(b, 1)).isEqualTo(2);
        List<String> blockedStreams = new java.util.ArrayList<>();
        r.body().path("blockedBy").forEach(x -> blockedStreams.add(x.path("tenant").stringValue() + "/"
                + x.path("catalog").stringValue() + ":" + x.path("kind").stringValue()));
        assertThat(blockedStreams).contains("globex/p-all-b:unpublished");
    }

    private String eventId(StreamId s, long position) {
        return jdbc.sql("SELECT event_id::text FROM outbox WHERE tenant = ? AND catalog = ? AND position = ?")
                .params(s.tenant(), s.catalog(), position).query(String.class).single();
    }

    /** xmin changes on every update of the row; equal before and after means the pruner never wrote it. */
    private String cursorRowVersion(StreamId s) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT xmin::text || '/' || updated_at FROM stream_cursor WHERE tenant = '"
                     + s.tenant() + "' AND catalog = '" + s.catalog() + "'")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
