package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import com.acme.catalog.contracts.ChainDigest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /v1/epochs/{t}/{c}/rotate}: refused outside maintenance; issues the next epoch in the control store with
 * its reason and issuer, fences the old cursor, opens the new one at 0 with digest d0, leaves the old outbox rows in
 * their epoch, and closes the old epoch's leases, progress, catch-up and manifests.
 */
@TestPropertySource(properties = {"object.store.uri=file:${java.io.tmpdir}/resolver-rotation-it",
        "retention.prune.enabled=false", "retention.status.enabled=false"})
class RotationIT extends EpochIT {

    @AfterEach
    void off() {
        maintenance(false);
    }

    @Test
    void aRotationNeedsMaintenance() {
        writeItems("acme", "no-maint", 2);
        Response r = rotate("acme", "no-maint", "restore");
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("MAINTENANCE_REQUIRED");
        assertThat(get("/v1/epochs/acme/no-maint", "op").body().path("history")).hasSize(1);
        assertThat(get("/v1/streams/acme/no-maint/cursor", "op").number("epoch")).isEqualTo(1);
    }

    @Test
    void rotationFencesTheOldEpochAndOpensTheNextAtZero() throws Exception {
        writeItems("acme", "rot", 5);
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "acme", "catalog", "rot",
                "epoch", 1)).status()).isEqualTo(201);
        assertThat(progress(1, 3).status()).isEqualTo(200);
        String lease = post("/v1/retention/leases", "op", Map.of("tenant", "acme", "catalog", "rot", "epoch", 1,
                "ttlSeconds", 300, "owner", "rebuild")).text("leaseId");
        String export = post("/v1/exports", "op", Map.of("tenant", "acme", "catalog", "rot", "leaseId", lease))
                .text("exportId");
        await().atMost(Duration.ofSeconds(30)).until(() -> "READY".equals(get("/v1/exports/" + export, "op")
                .text("status")));
        assertThat(get("/v1/exports/" + export + "/manifest", "op").status()).isEqualTo(200);

        String digestAt5 = get("/v1/streams/acme/rot/cursor", "op").text("chainDigest");
        maintenance(true);
        Response rotated = rotate("acme", "rot", "restore drill");
        assertThat(rotated.status()).as(rotated.raw()).isEqualTo(200);
        assertThat(rotated.raw()).isEqualTo("{\"epoch\":2}");

        JsonNode status = get("/v1/epochs/acme/rot", "op").body();
        assertThat(status.path("epoch").asLong()).isEqualTo(2);
        assertThat(status.path("highWaterMark").asLong()).isZero();
        assertThat(status.path("history")).hasSize(2);
        assertThat(status.path("history").get(1).path("reason").stringValue()).isEqualTo("restore drill");
        assertThat(status.path("history").get(1).path("issuer").stringValue()).startsWith("token-");
        assertThat(status.path("issuedAt")).isEqualTo(status.path("history").get(1).path("issuedAt"));
        // where epoch 2 starts: the restored position of epoch 1 and its digest; epoch 1's start is unknown
        assertThat(status.path("history").get(0).has("startsFrom")).isTrue();
        assertThat(status.path("history").get(0).path("startsFrom").isNull()).isTrue();
        JsonNode starts = status.path("history").get(1).path("startsFrom");
        assertThat(starts.path("epoch").asLong()).isEqualTo(1);
        assertThat(starts.path("position").asLong()).isEqualTo(5);
        assertThat(starts.path("chainDigest").stringValue()).isEqualTo(digestAt5);
        assertThat(starts.path("empty").asBoolean()).isFalse();
        // and the listing says the same of the current epoch, for a page of streams at once
        JsonNode listed = get("/v1/streams?tenant=acme&limit=500", "op").body().path("streams");
        JsonNode rot = null;
        for (JsonNode e : listed) {
            if ("rot".equals(e.path("catalog").stringValue())) {
                rot = e;
            }
        }
        assertThat(rot).isNotNull();
        assertThat(rot.path("currentEpoch").asLong()).isEqualTo(2);
        assertThat(rot.path("startsFrom")).isEqualTo(starts);

        JsonNode cursor = get("/v1/streams/acme/rot/cursor", "op").body();
        assertThat(cursor.path("epoch").asLong()).isEqualTo(2);
        assertThat(cursor.path("position").asLong()).isZero();
        assertThat(cursor.path("chainDigest").stringValue()).isEqualTo(ChainDigest.ZERO);
        assertThat(jdbc.sql("SELECT epoch || ':' || position || ':' || (fenced_at IS NOT NULL) FROM stream_cursor "
                + "WHERE catalog = 'rot' ORDER BY epoch").query(String.class).list())
                .containsExactly("1:5:true", "2:0:false");
        // old events are never relabelled: they stay in epoch 1
        assertThat(jdbc.sql("SELECT epoch || ':' || count(*) FROM outbox WHERE catalog = 'rot' GROUP BY epoch")
                .query(String.class).list()).containsExactly("1:5");

        // what belonged to epoch 1 is closed
        Response renew = post("/v1/retention/leases/" + lease + "/renew", "op", Map.of("ttlSeconds", 60));
        assertThat(renew.status()).isEqualTo(410);
        assertThat(renew.code()).isEqualTo("LEASE_EXPIRED");
        Response manifest = get("/v1/exports/" + export + "/manifest", "op");
        assertThat(manifest.status()).isEqualTo(410);
        assertThat(manifest.code()).isEqualTo("EPOCH_CHANGED");
        Response page = get("/v1/exports/events?tenant=acme&catalog=rot&after=0&lease_id=" + lease
                + "&history_epoch=1", "op");
        assertThat(page.status()).isEqualTo(410);
        Response oldProgress = progress(1, 5);
        assertThat(oldProgress.status()).isEqualTo(409);
        assertThat(oldProgress.code()).isEqualTo("EPOCH_MISMATCH");
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "acme", "catalog", "rot",
                "epoch", 1)).code()).isEqualTo("EPOCH_MISMATCH");

        maintenance(false);
        Response first = putItem("acme", "rot", "sku-0");
        assertThat(first.number("epoch")).isEqualTo(2);
        assertThat(first.number("position")).isEqualTo(1);
        String wire = jdbc.sql("SELECT wire FROM outbox WHERE catalog = 'rot' AND epoch = 2 AND position = 1")
                .query(String.class).single();
        assertThat(jdbc.sql("SELECT chain_digest FROM outbox WHERE catalog = 'rot' AND epoch = 2 AND position = 1")
                .query(String.class).single()).isEqualTo(ChainDigest.next(ChainDigest.ZERO, wire));
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "acme", "catalog", "rot",
                "epoch", 2)).number("durablePosition")).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> highWaterMark("acme", "rot", 2) == 1);
        assertThat(highWaterMark("acme", "rot", 1)).isEqualTo(5);
        assertThat(metric("resolver_stream_position{application=\"resolver\",catalog=\"rot\"")).isEqualTo(1.0);
    }

    @Test
    void concurrentRotationsIssueDistinctEpochsAndLeaveOneOpenCursorInTheCurrentOne() throws Exception {
        writeItems("acme", "twice", 1);
        maintenance(true);
        List<CompletableFuture<Response>> calls = List.of(
                CompletableFuture.supplyAsync(() -> rotate("acme", "twice", "first")),
                CompletableFuture.supplyAsync(() -> rotate("acme", "twice", "second")));
        Set<Long> issued = new HashSet<>();
        for (CompletableFuture<Response> c : calls) {
            Response r = c.get();
            if (r.status() == 200) {
                issued.add(r.number("epoch"));
            } else {
                assertThat(r.code()).isEqualTo("EPOCH_MISMATCH");
            }
        }
        assertThat(issued).isNotEmpty().isSubsetOf(2L, 3L);
        long current = get("/v1/epochs/acme/twice", "op").number("epoch");
        assertThat(current).isEqualTo(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
        assertThat(jdbc.sql("SELECT epoch FROM stream_cursor WHERE catalog = 'twice' AND fenced_at IS NULL")
                .query(Long.class).list()).containsExactly(current);
    }

    @Test
    void aStreamNobodyWroteCanBeRotatedAndItsFirstWriteUsesTheNewEpoch() {
        maintenance(true);
        assertThat(rotate("acme", "empty", "fresh start").number("epoch")).isEqualTo(1);
        assertThat(rotate("acme", "empty", "again").number("epoch")).isEqualTo(2);
        maintenance(false);
        Response w = putItem("acme", "empty", "a");
        assertThat(w.number("epoch")).isEqualTo(2);
        assertThat(w.number("position")).isEqualTo(1);
    }

    @Test
    void badRotationRequestsChangeNothing() {
        writeItems("acme", "bad-rot", 1);
        maintenance(true);
        String path = "/v1/epochs/acme/bad-rot/rotate";
        for (Object body : List.of("{}", "{\"reason\":\"\"}", "{\"reason\":\"   \"}", "{\"reason\":42}",
                "{\"reason\":\"" + "x".repeat(501) + "\"}", "{\"reason\":\"line\\nbreak\"}", "[]", "nope")) {
            Response r = post(path, "op", body);
            assertThat(r.status()).as(String.valueOf(body)).isEqualTo(400);
            assertThat(r.code()).as(String.valueOf(body)).isEqualTo("INVALID_BODY");
        }
        assertThat(post(path, "w", Map.of("reason", "x")).code()).isEqualTo("FORBIDDEN");
        assertThat(post(path, "c", Map.of("reason", "x")).code()).isEqualTo("FORBIDDEN");
        assertThat(post(path, null, Map.of("reason", "x")).code()).isEqualTo("UNAUTHENTICATED");
        assertThat(post("/v1/epochs/acme/Bad/rotate", "op", Map.of("reason", "x")).code()).isEqualTo("INVALID_ID");
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE catalog = 'bad-rot'").query(Long.class)
                .single()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE catalog = 'bad-rot'").query(Long.class)
                .single()).isEqualTo(1);
    }

    private Response progress(long epoch, long position) {
        return put("/v1/retention/consumers/p/progress", "c", Map.of("tenant", "acme", "catalog", "rot", "epoch",
                epoch, "position", position));
    }
}
