package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.ChainDigest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /v1/epochs/rotations}: every stream of a scope (all, one tenant, a list) rotated as a single rotation
 * rotates it, in batches; an {@code Idempotency-Key} or the same scope while its job runs answers that job; another
 * scope while one runs, maintenance-off and a single rotation of a pending stream are refused until it ended, and
 * maintenance-off with force stops it.
 */
@TestPropertySource(properties = {"rotation.batch-size=7", "rotation.poll-interval=PT0.2S", "rotation.claim-ttl=PT5S",
        "retention.prune.enabled=false", "retention.status.enabled=false"})
class FleetRotationIT extends EpochIT {

    @Autowired
    private StreamRotator rotator;

    @AfterEach
    void off() {
        rotator.afterIssue = () -> { };
        await().atMost(Duration.ofSeconds(30)).until(() -> !jdbc.sql("SELECT EXISTS (SELECT 1 FROM epoch_rotation "
                + "WHERE status = 'RUNNING')").query(Boolean.class).single());
        maintenance(false);
    }

    @Test
    void itsMetricsAreRegisteredAtStart() {
        assertThat(metric("resolver_epoch_rotation_running{")).isZero();
        assertThat(metric("resolver_epoch_rotation_job_streams{")).isZero();
        assertThat(metric("resolver_epoch_rotation_job_streams_finished{")).isZero();
        assertThat(metric("resolver_epoch_rotation_streams_total{")).isNotNull();
        assertThat(metric("resolver_epoch_rotation_jobs_total{")).isNotNull();
        assertThat(metric("resolver_epoch_rotation_batch_seconds_count{")).isNotNull();
    }

    @Test
    void aFleetRotationNeedsMaintenanceAndAValidRequest() {
        writeItems("fleet-bad", "a", 1);
        Answer r = start(Map.of("reason", "restore", "scope", Map.of("all", true)), null);
        assertThat(r.status()).as(r.raw()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("MAINTENANCE_REQUIRED");
        maintenance(true);
        for (String body : List.of("{}", "{\"reason\":\"x\"}", "{\"reason\":\"x\",\"scope\":{}}",
                "{\"reason\":\"x\",\"scope\":{\"all\":false}}", "{\"reason\":\"x\",\"scope\":{\"all\":true,\"tenant\":\"a\"}}",
                "{\"reason\":\"x\",\"scope\":{\"streams\":[]}}", "{\"reason\":\"\",\"scope\":{\"all\":true}}",
                "{\"reason\":\"x\",\"scope\":{\"all\":\"yes\"}}")) {
            Answer bad = start(body, null);
            assertThat(bad.status()).as(body + " " + bad.raw()).isEqualTo(400);
        }
        assertThat(start("{\"reason\":\"x\",\"scope\":{\"tenant\":\"Bad\"}}", null).code()).isEqualTo("INVALID_ID");
        assertThat(start("{\"reason\":\"x\",\"scope\":{\"streams\":[{\"tenant\":\"a\",\"catalog\":\"B\"}]}}", null)
                .code()).isEqualTo("INVALID_ID");
        Answer writer = call("w", "{\"reason\":\"x\",\"scope\":{\"all\":true}}", null);
        assertThat(writer.code()).isEqualTo("FORBIDDEN");
        assertThat(jdbc.sql("SELECT count(*) FROM epoch_rotation").query(Long.class).single()).isZero();
        assertThat(get("/v1/epochs/rotations/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "op").status()).isEqualTo(404);
    }

    @Test
    void aTenantsStreamsAreRotatedOnceEachWithEverythingASingleRotationDoes() {
        List<String> catalogs = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        for (String c : catalogs) {
            writeItems("fleet-t", c, 2);
        }
        writeItems("fleet-other", "x", 1);
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "fleet-t", "catalog",
                "*")).status()).isEqualTo(201);
        Map<String, String> digests = new java.util.HashMap<>();
        for (String c : catalogs) {
            digests.put(c, get("/v1/streams/fleet-t/" + c + "/cursor", "op").text("chainDigest"));
        }
        maintenance(true);
        String body = "{\"reason\":\"restore of the resolver database\",\"scope\":{\"tenant\":\"fleet-t\"}}";
        Answer started = start(body, "restore-1");
        assertThat(started.status()).as(started.raw()).isEqualTo(202);
        String id = started.text("rotationId");
        JsonNode done = awaitEnd(id);
        assertThat(done.path("status").stringValue()).as(done.toString()).isEqualTo("DONE");
        assertThat(done.path("streams").asLong()).isEqualTo(10);
        assertThat(done.path("rotated").asLong()).isEqualTo(10);
        assertThat(done.path("failed").asLong()).isZero();
        assertThat(done.path("errors")).isEmpty();
        assertThat(done.has("finishedAt")).isTrue();
        assertThat(done.has("etaSeconds")).isFalse();
        assertThat(done.path("ratePerSecond").asDouble()).isPositive();
        assertThat(done.path("scope").path("tenant").stringValue()).isEqualTo("fleet-t");

        for (String c : catalogs) {
            JsonNode epochs = get("/v1/epochs/fleet-t/" + c, "op").body();
            assertThat(epochs.path("epoch").asLong()).as(c).isEqualTo(2);
            JsonNode last = epochs.path("history").get(1);
            assertThat(last.path("reason").stringValue()).isEqualTo("restore of the resolver database");
            assertThat(last.path("startsFrom").path("epoch").asLong()).isEqualTo(1);
            assertThat(last.path("startsFrom").path("position").asLong()).isEqualTo(2);
            assertThat(last.path("startsFrom").path("chainDigest").stringValue()).isEqualTo(digests.get(c));
            JsonNode cursor = get("/v1/streams/fleet-t/" + c + "/cursor", "op").body();
            assertThat(cursor.path("epoch").asLong()).isEqualTo(2);
            assertThat(cursor.path("position").asLong()).isZero();
            assertThat(cursor.path("chainDigest").stringValue()).isEqualTo(ChainDigest.ZERO);
        }
        assertThat(jdbc.sql("SELECT epoch || ':' || (fenced_at IS NOT NULL) || ':' || count(*) FROM stream_cursor "
                + "WHERE tenant = 'fleet-t' GROUP BY epoch, fenced_at IS NOT NULL ORDER BY epoch").query(String.class).list())
                .containsExactly("1:true:10", "2:false:10");
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE rotation_id = CAST(? AS uuid)").params(id)
                .query(Long.class).single()).isEqualTo(10);
        assertThat(jdbc.sql("SELECT DISTINCT epoch || ':' || durable_position FROM retention_consumer "
                + "WHERE consumer_id = 'p' AND tenant = 'fleet-t'").query(String.class).list()).containsExactly("2:0");
        assertThat(get("/v1/epochs/fleet-other/x", "op").number("epoch")).isEqualTo(1);

        // repeated: the same key answers the same job and rotates nothing; another request under it is refused
        Answer again = start(body, "restore-1");
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.text("rotationId")).isEqualTo(id);
        assertThat(again.text("status")).isEqualTo("DONE");
        Answer reused = start("{\"reason\":\"other\",\"scope\":{\"tenant\":\"fleet-t\"}}", "restore-1");
        assertThat(reused.status()).isEqualTo(422);
        assertThat(reused.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(control().sql("SELECT max(epoch) FROM stream_epoch WHERE tenant = 'fleet-t'").query(Long.class)
                .single()).isEqualTo(2);

        // the old cursors are fenced: writes go to the new epoch from position 1
        maintenance(false);
        Response w = putItem("fleet-t", "a", "sku-9");
        assertThat(w.number("epoch")).isEqualTo(2);
        assertThat(w.number("position")).isEqualTo(1);
    }

    @Test
    void aListAndEveryStreamIncludingOnesOnlyTheControlStoreKnows() {
        writeItems("fleet-l", "a", 1);
        writeItems("fleet-l", "b", 1);
        writeItems("fleet-l", "c", 1);
        maintenance(true);
        Answer list = start("{\"reason\":\"two of them\",\"scope\":{\"streams\":[{\"tenant\":\"fleet-l\","
                + "\"catalog\":\"a\"},{\"tenant\":\"fleet-l\",\"catalog\":\"b\"},{\"tenant\":\"fleet-l\",\"catalog\":"
                + "\"a\"},{\"tenant\":\"fleet-l\",\"catalog\":\"never\"}]}}", null);
        JsonNode listed = awaitEnd(list.text("rotationId"));
        assertThat(listed.path("status").stringValue()).isEqualTo("DONE");
        assertThat(listed.path("streams").asLong()).isEqualTo(3);
        assertThat(get("/v1/epochs/fleet-l/a", "op").number("epoch")).isEqualTo(2);
        assertThat(get("/v1/epochs/fleet-l/b", "op").number("epoch")).isEqualTo(2);
        assertThat(get("/v1/epochs/fleet-l/c", "op").number("epoch")).isEqualTo(1);
        JsonNode never = get("/v1/epochs/fleet-l/never", "op").body().path("history");
        assertThat(never).hasSize(1);
        assertThat(never.get(0).path("startsFrom").path("empty").asBoolean()).isTrue();

        // a stream whose cursor the restored database lost entirely: only the control store knows it
        control().sql("INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer) VALUES ('fleet-l', 'lost', 1, "
                + "'initial', 'resolver')").update();
        Answer all = start("{\"reason\":\"everything\",\"scope\":{\"all\":true}}", null);
        JsonNode everything = awaitEnd(all.text("rotationId"));
        assertThat(everything.path("status").stringValue()).as(everything.toString()).isEqualTo("DONE");
        assertThat(get("/v1/epochs/fleet-l/a", "op").number("epoch")).isEqualTo(3);
        assertThat(get("/v1/epochs/fleet-l/c", "op").number("epoch")).isEqualTo(2);
        JsonNode lost = get("/v1/epochs/fleet-l/lost", "op").body();
        assertThat(lost.path("epoch").asLong()).isEqualTo(2);
        assertThat(lost.path("history").get(1).path("startsFrom").path("empty").asBoolean()).isTrue();
        assertThat(jdbc.sql("SELECT epoch FROM stream_cursor WHERE tenant = 'fleet-l' AND catalog = 'lost' "
                + "AND fenced_at IS NULL").query(Long.class).single()).isEqualTo(2);
        long everyStream = jdbc.sql("SELECT count(*) FROM stream_cursor WHERE fenced_at IS NULL").query(Long.class)
                .single();
        assertThat(everything.path("rotated").asLong()).isEqualTo(everyStream);
    }

    @Test
    void whileAJobRunsItIsTheOnlyOneAndMaintenanceStaysOn() throws Exception {
        for (String c : List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")) {
            writeItems("fleet-run", c, 1);
        }
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        rotator.afterIssue = () -> {
            inBatch.countDown();
            waitFor(release);
        };
        maintenance(true);
        String body = "{\"reason\":\"restore\",\"scope\":{\"tenant\":\"fleet-run\"}}";
        String id = start(body, null).text("rotationId");
        assertThat(inBatch.await(30, TimeUnit.SECONDS)).isTrue();

        Answer same = start(body, "late-key");
        assertThat(same.status()).isEqualTo(202);
        assertThat(same.text("rotationId")).isEqualTo(id);
        Answer other = start("{\"reason\":\"restore\",\"scope\":{\"all\":true}}", null);
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.code()).isEqualTo("ROTATION_RUNNING");
        Response single = rotate("fleet-run", "j", "by hand");
        assertThat(single.status()).isEqualTo(409);
        assertThat(single.code()).isEqualTo("ROTATION_RUNNING");
        JsonNode running = get("/v1/epochs/rotations/" + id, "op").body();
        assertThat(running.path("status").stringValue()).isEqualTo("RUNNING");
        assertThat(running.has("finishedAt")).isFalse();

        // maintenance-off waits for the batch in flight (it holds the hold), then is refused: streams are left
        CompletableFuture<Response> off = CompletableFuture.supplyAsync(() -> post("/v1/admin/maintenance", "op",
                Map.of("enabled", false)));
        Thread.sleep(300);
        rotator.afterIssue = () -> { };
        release.countDown();
        Response refused = off.get(30, TimeUnit.SECONDS);
        assertThat(refused.status()).as(refused.raw()).isEqualTo(409);
        assertThat(refused.code()).isEqualTo("ROTATION_RUNNING");
        assertThat(get("/v1/admin/maintenance", "op").body().path("enabled").asBoolean()).isTrue();

        JsonNode done = awaitEnd(id);
        assertThat(done.path("status").stringValue()).isEqualTo("DONE");
        assertThat(done.path("rotated").asLong()).isEqualTo(10);
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE tenant = 'fleet-run' AND epoch > 1")
                .query(Long.class).single()).isEqualTo(10);
        // the key sent while it ran answers the same job after it ended: its retry rotates nothing again
        Answer retried = start(body, "late-key");
        assertThat(retried.text("rotationId")).isEqualTo(id);
        assertThat(retried.text("status")).isEqualTo("DONE");
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE tenant = 'fleet-run' AND epoch > 1")
                .query(Long.class).single()).isEqualTo(10);
    }

    @Test
    void maintenanceOffWithForceStopsTheJobWithTheRestNotRotated() throws Exception {
        for (String c : List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")) {
            writeItems("fleet-force", c, 1);
        }
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        rotator.afterIssue = () -> {
            inBatch.countDown();
            waitFor(release);
        };
        maintenance(true);
        String id = start("{\"reason\":\"restore\",\"scope\":{\"tenant\":\"fleet-force\"}}", null).text("rotationId");
        assertThat(inBatch.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Response> off = CompletableFuture.supplyAsync(() -> post("/v1/admin/maintenance", "op",
                Map.of("enabled", false, "force", true)));
        Thread.sleep(300);
        rotator.afterIssue = () -> { };
        release.countDown();
        assertThat(off.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);

        JsonNode stopped = awaitEnd(id);
        assertThat(stopped.path("status").stringValue()).isEqualTo("FAILED");
        assertThat(stopped.path("error").stringValue()).contains("force");
        assertThat(stopped.path("rotated").asLong()).isEqualTo(7);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE tenant = 'fleet-force' AND epoch = 2")
                .query(Long.class).single()).isEqualTo(7);
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE tenant = 'fleet-force' AND epoch > 1")
                .query(Long.class).single()).isEqualTo(7);
    }

    private JsonNode awaitEnd(String id) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = get("/v1/epochs/rotations/" + id, "op").body();
            return !"RUNNING".equals(last[0].path("status").stringValue());
        });
        return last[0];
    }

    private Answer start(Object body, String key) {
        return call("op", body instanceof String s ? s : json(body), key);
    }

    private Answer call(String token, String body, String key) {
        var spec = client(token).post().uri("/v1/epochs/rotations").contentType(MediaType.APPLICATION_JSON);
        if (key != null) {
            spec.header("Idempotency-Key", key);
        }
        var entity = spec.body(body).retrieve().toEntity(String.class);
        String text = entity.getBody();
        JsonNode node = text == null ? tools.jackson.databind.node.MissingNode.getInstance()
                : tools.jackson.databind.json.JsonMapper.builder().build().readTree(text);
        return new Answer(entity.getStatusCode().value(), node, text);
    }

    /** An answer of POST /v1/epochs/rotations (sent with headers of its own). */
    private record Answer(int status, JsonNode body, String raw) {

        String code() {
            return text("code");
        }

        String text(String field) {
            JsonNode n = body.path(field);
            return n.isString() ? n.stringValue() : null;
        }
    }

    private static String json(Object body) {
        return tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(body);
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the batch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
