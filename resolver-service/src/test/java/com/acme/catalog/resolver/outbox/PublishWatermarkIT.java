package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/**
 * Publishing N events writes one watermark row and updates no outbox row (a per-row
 * {@code published_at} update cost a non-HOT tuple version, index entries and WAL per event), while retention still
 * counts min-age from the publish: a batch younger than min-age is not pruned, and is once it is older.
 */
@TestPropertySource(properties = {"retention.prune.enabled=false", "retention.status.enabled=false",
        "retention.min-age=PT10M"})
class PublishWatermarkIT extends ResolverIT {

    private static final StreamId S = new StreamId("acme", "watermark");
    private static final int N = 20;

    @Autowired
    RelayRepository repo;
    @Autowired
    JdbcClient jdbc;

    @Test
    void publishingUpdatesNoOutboxRowAndRetentionStillWaitsMinAgeFromThePublish() {
        for (int i = 0; i < N; i++) {
            assertThat(put("/v1/streams/acme/watermark/items/i" + i, "w", "{\"attributes\":{}}").status())
                    .isEqualTo(200);
        }
        // the writers' statistics are in (inserts are counted), so the counters below are current
        await().atMost(Duration.ofSeconds(20)).until(() -> outboxStat("n_tup_ins") >= N);
        long updatesBefore = outboxStat("n_tup_upd");

        assertThat(repo.publish(S, 1)).isEqualTo(new RelayRepository.Published(N, N));

        // a backend flushes its table statistics within about a second once idle: had the publish updated outbox
        // rows, n_tup_upd would grow within this window
        await().pollDelay(Duration.ofMillis(200)).during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> outboxStat("n_tup_upd") == updatesBefore);
        assertThat(repo.publishedThrough(S, 1)).isEqualTo(N);
        assertThat(jdbc.sql("SELECT count(*) FROM outbox_publish WHERE tenant = 'acme' AND catalog = 'watermark'")
                .query(Long.class).single()).isEqualTo(1);

        // published just now, min-age 10 minutes: nothing is ripe, nothing is pruned
        assertThat(prune()).isZero();
        assertThat(retained()).isEqualTo(N);
        var status = get("/v1/retention/streams/acme/watermark", "op");
        assertThat(status.status()).isEqualTo(200);
        assertThat(status.body().path("ripeThrough").longValue()).isZero();

        // an hour later (by the database clock the batch is older): the whole batch is pruned
        jdbc.sql("UPDATE outbox_publish SET published_at = published_at - interval '1 hour' "
                + "WHERE tenant = 'acme' AND catalog = 'watermark'").update();
        assertThat(prune()).isEqualTo(N);
        assertThat(retained()).isZero();
        // the watermark survives the prune of the rows it covers
        assertThat(repo.publishedThrough(S, 1)).isEqualTo(N);
    }

    private long outboxStat(String column) {
        jdbc.sql("SELECT true FROM pg_stat_clear_snapshot()").query(Boolean.class).single();
        return jdbc.sql("SELECT " + column + " FROM pg_stat_user_tables WHERE relid = 'outbox'::regclass")
                .query(Long.class).single();
    }

    private long prune() {
        Response r = post("/v1/retention/prune", "op", Map.of("tenant", S.tenant(), "catalog", S.catalog()));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.number("prunedThrough");
    }

    private long retained() {
        return jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'watermark'")
                .query(Long.class).single();
    }
}
