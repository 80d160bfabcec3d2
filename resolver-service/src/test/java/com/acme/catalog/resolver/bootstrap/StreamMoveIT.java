package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The source side of a move: MOVING refuses every write (409 {@code STREAM_MOVING} naming the target) and lets the
 * stream be read; a cancel makes it writable again; MOVED retires it for good (410 {@code STREAM_MOVED} with the new
 * location), through a rotation too; each step repeats safely and refuses what does not fit.
 */
class StreamMoveIT extends ResolverIT {

    private static final String S = "/v1/streams/acme/moving";
    private static final String TARGET = "http://resolver-b.example:8081";

    @Autowired
    JdbcClient jdbc;

    @Test
    void movingRefusesWritesCancelReopensMovedRetiresForGood() {
        assertThat(put(S + "/items/a", "w", Map.of("attributes", Map.of("n", 1))).status()).isEqualTo(200);

        Response begun = post(S + "/move", "op", Map.of("target", TARGET, "reason", "rebalance"));
        assertThat(begun.status()).as(begun.raw()).isEqualTo(200);
        assertThat(begun.text("state")).isEqualTo("MOVING");
        assertThat(begun.number("cursor")).isEqualTo(1);
        assertThat(post(S + "/move", "op", Map.of("target", TARGET)).text("state")).as("repeated").isEqualTo("MOVING");
        Response elsewhere = post(S + "/move", "op", Map.of("target", "http://resolver-c.example"));
        assertThat(elsewhere.status()).isEqualTo(409);
        assertThat(elsewhere.code()).isEqualTo("STREAM_MOVING");

        Response refused = put(S + "/items/b", "w", Map.of("attributes", Map.of()));
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.code()).isEqualTo("STREAM_MOVING");
        assertThat(refused.text("location")).isEqualTo(TARGET);
        Response status = get(S, "op");
        assertThat(status.body().path("move").path("state").stringValue()).isEqualTo("MOVING");
        assertThat(status.body().path("move").path("reason").stringValue()).isEqualTo("rebalance");
        assertThat(get(S + "/state-checksum", "op").status()).as("reads go on").isEqualTo(200);

        Response cancelled = delete(S + "/move", "op");
        assertThat(cancelled.status()).as(cancelled.raw()).isEqualTo(200);
        assertThat(cancelled.body().path("state").isNull()).isTrue();
        assertThat(put(S + "/items/b", "w", Map.of("attributes", Map.of())).number("position")).isEqualTo(2);
        assertThat(delete(S + "/move", "op").status()).isEqualTo(404);
        assertThat(post(S + "/move/complete", "op", Map.of("target", TARGET)).status()).isEqualTo(404);

        post(S + "/move", "op", Map.of("target", TARGET));
        Response done = post(S + "/move/complete", "op", Map.of("target", TARGET));
        assertThat(done.status()).as(done.raw()).isEqualTo(200);
        assertThat(done.text("state")).isEqualTo("MOVED");
        assertThat(post(S + "/move/complete", "op", Map.of("target", TARGET)).text("state")).isEqualTo("MOVED");
        Response gone = put(S + "/items/c", "w", Map.of("attributes", Map.of()));
        assertThat(gone.status()).isEqualTo(410);
        assertThat(gone.code()).isEqualTo("STREAM_MOVED");
        assertThat(gone.text("location")).isEqualTo(TARGET);
        assertThat(delete(S + "/move", "op").code()).isEqualTo("STREAM_MOVED");
        assertThat(post(S + "/move", "op", Map.of("target", TARGET)).code()).isEqualTo("STREAM_MOVED");

        // a rotation does not bring it back: the next epoch's row carries the move
        assertThat(post("/v1/admin/maintenance", "op", Map.of("enabled", true)).status()).isEqualTo(200);
        try {
            Response rotated = post("/v1/epochs/acme/moving/rotate", "op", Map.of("reason", "drill"));
            assertThat(rotated.status()).as(rotated.raw()).isEqualTo(200);
        } finally {
            post("/v1/admin/maintenance", "op", Map.of("enabled", false));
        }
        assertThat(get(S, "op").body().path("epoch").asLong()).isEqualTo(2);
        assertThat(put(S + "/items/c", "w", Map.of("attributes", Map.of())).code()).isEqualTo("STREAM_MOVED");
    }

    @Test
    void badRequestsWriteNothing() {
        put("/v1/streams/acme/moving-bad/items/a", "w", Map.of("attributes", Map.of()));
        assertThat(post("/v1/streams/acme/moving-bad/move", "op", Map.of("target", "")).code())
                .isEqualTo("INVALID_BODY");
        assertThat(post("/v1/streams/acme/moving-bad/move", "w", Map.of("target", TARGET)).status()).isEqualTo(403);
        assertThat(post("/v1/streams/acme/never-written/move", "op", Map.of("target", TARGET)).status())
                .isEqualTo(404);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE catalog LIKE 'moving-bad' AND move_state IS NOT "
                + "NULL").query(Long.class).single()).isZero();
    }
}
