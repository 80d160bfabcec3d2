package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A fleet rotation at a test size: {@value #STREAMS} streams (cursors and control-store epochs made by SQL, a pattern
 * subscriber registered in each) rotated with the default batch size, well under a minute; the rate is logged (the
 * figure to compare is measured on a quiet machine at 10,000 streams, not here).
 */
@TestPropertySource(properties = {"retention.prune.enabled=false", "retention.status.enabled=false"})
class FleetRotationScaleIT extends EpochIT {

    private static final Logger log = LoggerFactory.getLogger(FleetRotationScaleIT.class);
    static final int STREAMS = 2000;

    @Test
    void twoThousandStreamsRotateWellUnderAMinute() {
        jdbc.sql("""
                INSERT INTO stream_cursor (tenant, catalog, epoch, position, chain_digest)
                SELECT 'scale-' || (i % 20), 'c' || i, 1, 1 + i % 7, md5(i::text) || md5((i + 1)::text)
                  FROM generate_series(1, ?) AS i
                """).params(STREAMS).update();
        control().sql("""
                INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer)
                SELECT 'scale-' || (i % 20), 'c' || i, 1, 'initial', 'resolver' FROM generate_series(1, ?) AS i
                """).params(STREAMS).update();
        assertThat(post("/v1/retention/consumers", "op", Map.of("consumerId", "product", "tenant", "*", "catalog",
                "*")).status()).isEqualTo(201);
        maintenance(true);
        long started = System.nanoTime();
        Response r = post("/v1/epochs/rotations", "op", Map.of("reason", "scale", "scope", Map.of("all", true)));
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = get("/v1/epochs/rotations/" + r.text("rotationId"), "op").body();
            return !"RUNNING".equals(last[0].path("status").stringValue());
        });
        double seconds = (System.nanoTime() - started) / 1e9;
        log.info("fleet rotation of {} streams: {} in {} s end to end, {} streams/s by the job", STREAMS,
                last[0].path("status").stringValue(), Math.round(seconds * 10) / 10.0,
                last[0].path("ratePerSecond").asDouble());
        assertThat(last[0].path("status").stringValue()).isEqualTo("DONE");
        assertThat(last[0].path("rotated").asLong()).isEqualTo(STREAMS);
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE epoch = 2 AND starts_from_position >= 1")
                .query(Long.class).single()).isEqualTo(STREAMS);
        assertThat(jdbc.sql("SELECT count(*) FROM retention_consumer WHERE consumer_id = 'product' AND epoch = 2")
                .query(Long.class).single()).isEqualTo(STREAMS);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE epoch = 2 AND fenced_at IS NULL")
                .query(Long.class).single()).isEqualTo(STREAMS);
        maintenance(false);
    }
}
