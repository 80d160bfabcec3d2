package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.resolver.export.ExportObserver.Step;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;

/**
 * An export turns READY only with a live lease in an unchanged epoch: a lease that expires or is released, or an
 * epoch change, inside the snapshot or after it aborts the export and removes its objects. Also: progress while
 * RUNNING, the newest N kept, access rules and bad requests.
 */
class ExportLifecycleIT extends AbstractExportIT {

    /** What the observer does at each step of every export; tests set it, {@link #reset()} clears it. */
    static volatile BiConsumer<UUID, Step> onStep = (id, step) -> { };

    @TestConfiguration
    static class Observing {
        @Bean
        ExportObserver testObserver() {
            return (id, step) -> onStep.accept(id, step);
        }
    }

    @Autowired
    ExportHousekeeping housekeeping;

    @AfterEach
    void reset() {
        onStep = (id, step) -> { };
    }

    @Test
    void leaseExpiringInsideTheSnapshotAbortsTheExportAndRemovesItsObjects() throws Exception {
        StreamId s = new StreamId("acme", "expire-mid");
        writeItems(s, 30);
        UUID lease = lease(s, 1, 1);
        onStep = (id, step) -> {
            if (step == Step.TABLE_WRITTEN) {
                elsewhere(() -> awaitExpiredInDatabase(lease)); // real expiry, decided by the database clock
            }
        };
        JsonNode done = awaitEnd(startExport("op", s, lease).text("exportId"));
        assertAborted(done, "expired");
    }

    @Test
    void leaseReleasedAfterTheSnapshotAbortsTheExportBeforeItsPinMoves() throws Exception {
        StreamId s = new StreamId("acme", "release-after");
        writeItems(s, 30);
        UUID lease = lease(s, 1, 300);
        onStep = (id, step) -> {
            if (step == Step.OBJECTS_WRITTEN) {
                elsewhere(() -> assertThat(delete("/v1/retention/leases/" + lease, "op").status()).isEqualTo(204));
            }
        };
        JsonNode done = awaitEnd(startExport("op", s, lease).text("exportId"));
        assertAborted(done, "released");
        long pin = jdbc.sql("SELECT pin FROM retention_lease WHERE lease_id = ?").params(lease).query(Long.class)
                .single();
        assertThat(pin).as("an aborted export does not move the pin").isZero();
    }

    @Test
    void epochChangeInsideTheSnapshotAbortsTheExport() throws Exception {
        StreamId s = new StreamId("acme", "epoch-mid");
        writeItems(s, 30);
        UUID lease = lease(s, 1, 300);
        onStep = (id, step) -> {
            if (step == Step.TABLE_WRITTEN) {
                elsewhere(() -> rotateEpochInSql(s));
            }
        };
        JsonNode done = awaitEnd(startExport("op", s, lease).text("exportId"));
        assertAborted(done, "epoch");
        assertThat(done.path("error").stringValue()).contains("epoch 2");
    }

    @Test
    void epochChangeAfterTheSnapshotAbortsTheExport() throws Exception {
        StreamId s = new StreamId("acme", "epoch-after");
        writeItems(s, 30);
        UUID lease = lease(s, 1, 300);
        onStep = (id, step) -> {
            if (step == Step.OBJECTS_WRITTEN) {
                elsewhere(() -> rotateEpochInSql(s));
            }
        };
        JsonNode done = awaitEnd(startExport("op", s, lease).text("exportId"));
        assertAborted(done, "epoch");
    }

    @Test
    void runningExportShowsItsCursorAndProgressAndHasNoManifestYet() throws Exception {
        StreamId s = new StreamId("acme", "progress");
        long w = writeItems(s, 25);
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        onStep = (id, step) -> {
            if (step == Step.TABLE_WRITTEN && opened.getCount() == 1) {
                opened.countDown();
                await(proceed);
            }
        };
        UUID lease = lease(s, 1, 300);
        Response started = startExport("op", s, lease);
        assertThat(started.status()).isEqualTo(202);
        assertThat(started.text("status")).isEqualTo("RUNNING");
        String id = started.text("exportId");
        await(opened);
        try {
            sleep(1300); // one heartbeat (export.progress-interval, 1 s) writes the progress
            Response running = get("/v1/exports/" + id, "op");
            assertThat(running.text("status")).isEqualTo("RUNNING");
            assertThat(running.number("cursor")).isEqualTo(w);
            assertThat(running.body().path("progress").path("rowsWritten").asLong()).isEqualTo(13);
            assertThat(running.body().path("progress").path("phase").stringValue()).startsWith("SNAPSHOT");
            Response manifest = get("/v1/exports/" + id + "/manifest", "op");
            assertThat(manifest.status()).isEqualTo(409);
            assertThat(manifest.code()).isEqualTo("EXPORT_NOT_READY");
        } finally {
            proceed.countDown();
        }
        JsonNode done = awaitEnd(id);
        assertThat(done.path("status").stringValue()).isEqualTo("READY");
        assertThat(done.path("cursor").asLong()).isEqualTo(w);
        long history = jdbc.sql("SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = 'progress'")
                .query(Long.class).single();
        assertThat(done.path("progress").path("rowsWritten").asLong()).as("current rows and the history")
                .isEqualTo(13 + history);
        assertThat(done.path("manifestKey").stringValue()).endsWith("/manifest.json");
        long pin = jdbc.sql("SELECT pin FROM retention_lease WHERE lease_id = ?").params(lease).query(Long.class)
                .single();
        assertThat(pin).as("the pin moved from P to W").isEqualTo(w);
        var manifest = manifest(id);
        assertThat(ExportObjectReader.verify(store, done.path("manifestKey").stringValue(), manifest))
                .isEqualTo(stateAt(s, w));
        assertThat(manifest.object(Table.items).rows()).isEqualTo(13);
        // the manifest's checksum, computed from the exported CSV bytes, is what the state-checksum endpoint says
        JsonNode sum = get("/v1/streams/acme/progress/state-checksum", "op").body();
        assertThat(sum.path("position").asLong()).isEqualTo(w);
        for (Table t : Table.values()) {
            assertThat(sum.path("tables").path(t.name()).path("sha256").stringValue())
                    .isEqualTo(manifest.stateChecksum().get(t).sha256());
        }
        // the contract's metric
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).contains("resolver_export_seconds_count{").contains("outcome=\"READY\"");
    }

    @Test
    void onlyTheNewestThreeReadyExportsOfAStreamKeepTheirObjects() throws Exception {
        StreamId s = new StreamId("acme", "keep");
        StreamId other = new StreamId("acme", "keep-other");
        writeItems(other, 3);
        JsonNode otherExport = export(other);
        String[] ids = new String[5];
        for (int i = 0; i < ids.length; i++) {
            writeItems(s, 3);
            JsonNode done = export(s);
            assertThat(done.path("status").stringValue()).isEqualTo("READY");
            ids[i] = done.path("exportId").stringValue();
        }
        // retirement follows READY (the row is marked first, objects deleted after): the store converges
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (int i = 0; i < ids.length; i++) {
                Response r = get("/v1/exports/" + ids[i], "op");
                String prefix = "exports/acme/keep/e1/" + ids[i] + "/";
                if (i < 2) {
                    assertThat(r.status()).isEqualTo(404);
                    assertThat(r.body().path("detail").stringValue()).contains("retired");
                    assertThat(objectKeys(prefix)).isEmpty();
                } else {
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(objectKeys(prefix)).as("5 table objects and the manifest").hasSize(6);
                }
            }
        });
        assertThat(get("/v1/exports/" + otherExport.path("exportId").stringValue(), "op").status())
                .as("other streams keep their own").isEqualTo(200);
    }

    @Test
    void anExportWhoseInstanceStoppedHeartbeatingIsFailedAndItsObjectsRemoved() throws Exception {
        UUID id = UUID.randomUUID();
        String prefix = "exports/acme/orphan/e1/" + id + "/";
        jdbc.sql("""
                INSERT INTO snapshot_export (export_id, tenant, catalog, lease_id, epoch, status, object_prefix,
                                             requested_by, instance, heartbeat_at)
                VALUES (?, 'acme', 'orphan', ?, 1, 'RUNNING', ?, 'op', 'gone-instance', now() - interval '10 minutes')
                """).params(id, UUID.randomUUID(), prefix).update();
        store.put(prefix + "items.csv.gz", ExportFormat.OBJECT_CONTENT_TYPE, out -> out.write(new byte[] {1, 2}));
        housekeeping.failStaleExports();
        Response r = get("/v1/exports/" + id, "op");
        assertThat(r.text("status")).isEqualTo("FAILED");
        assertThat(r.text("error")).contains("gone-instance");
        assertThat(r.body().path("permanent").isBoolean()).as("a FAILED export says whether it is permanent").isTrue();
        assertThat(r.body().path("permanent").booleanValue()).as("a stopped instance says nothing about the data")
                .isFalse();
        assertThat(objectKeys(prefix)).isEmpty();
    }

    /**
     * A FAILED export says whether a new export would fail the same way ({@code permanent}): true when the database
     * found the stream's stored data damaged (SQLState XX001 here), false when it lost the connection (08006), so
     * the product asks for a new export only then. A RUNNING or READY export has no {@code permanent}.
     */
    @Test
    void aFailedExportSaysWhetherItsFailureIsAboutTheData() throws Exception {
        StreamId s = new StreamId("acme", "damaged");
        writeItems(s, 3);
        onStep = (id, step) -> {
            if (step == Step.OBJECTS_WRITTEN) {
                throw new org.springframework.jdbc.UncategorizedSQLException("COPY items", "COPY", new java.sql
                        .SQLException("invalid page in block 7 of relation base/16384/16402", "XX001"));
            }
        };
        JsonNode damaged = awaitEnd(startExport("op", s, lease(s, 1, 300)).text("exportId"));
        assertThat(damaged.path("status").stringValue()).isEqualTo("FAILED");
        assertThat(damaged.path("permanent").booleanValue()).as("%s", damaged).isTrue();
        assertThat(damaged.path("error").stringValue()).doesNotContain("Exception");

        onStep = (id, step) -> {
            if (step == Step.OBJECTS_WRITTEN) {
                throw new org.springframework.jdbc.UncategorizedSQLException("COPY items", "COPY", new java.sql
                        .SQLException("An I/O error occurred while sending to the backend", "08006"));
            }
        };
        JsonNode cut = awaitEnd(startExport("op", s, lease(s, 1, 300)).text("exportId"));
        assertThat(cut.path("status").stringValue()).isEqualTo("FAILED");
        assertThat(cut.path("permanent").isBoolean()).isTrue();
        assertThat(cut.path("permanent").booleanValue()).as("%s", cut).isFalse();

        onStep = (id, step) -> { };
        JsonNode ready = awaitEnd(startExport("op", s, lease(s, 1, 300)).text("exportId"));
        assertThat(ready.path("status").stringValue()).isEqualTo("READY");
        assertThat(ready.has("permanent")).isFalse();
    }

    @Test
    void accessRulesAndBadRequestsWriteNothing() {
        StreamId s = new StreamId("acme", "rules");
        writeItems(s, 2);
        UUID lease = lease(s, 1, 300);
        StreamId otherTenant = new StreamId("globex", "rules");
        writeItems(otherTenant, 2);
        UUID otherLease = lease(otherTenant, 1, 300);
        UUID shortLease = lease(s, 1, 1);
        awaitExpiredInDatabase(shortLease);

        assertThat(startExport(null, s, lease).status()).isEqualTo(401);
        assertThat(startExport("w", s, lease).code()).isEqualTo("FORBIDDEN");
        assertThat(startExport("c-acme", otherTenant, otherLease).code()).isEqualTo("FORBIDDEN");
        assertThat(post("/v1/exports", "op", Map.of("tenant", "Bad!", "catalog", "rules",
                "leaseId", lease.toString())).code()).isEqualTo("INVALID_ID");
        assertThat(post("/v1/exports", "op", Map.of("tenant", "acme", "catalog", "rules", "leaseId", "nope")).code())
                .isEqualTo("INVALID_ID");
        assertThat(post("/v1/exports", "op", Map.of("tenant", "acme", "catalog", "rules")).code())
                .isEqualTo("INVALID_BODY");
        assertThat(post("/v1/exports", "op", "[1]").code()).isEqualTo("INVALID_BODY");
        assertThat(startExport("op", s, UUID.randomUUID()).code()).isEqualTo("NOT_FOUND");
        assertThat(startExport("op", s, otherLease).code()).isEqualTo("INVALID_BODY");
        Response expired = startExport("op", s, shortLease);
        assertThat(expired.status()).isEqualTo(410);
        assertThat(expired.code()).isEqualTo("LEASE_EXPIRED");
        assertThat(jdbc.sql("SELECT count(*) FROM snapshot_export WHERE catalog = 'rules'").query(Long.class)
                .single()).isZero();

        assertThat(get("/v1/exports/" + UUID.randomUUID(), "op").code()).isEqualTo("NOT_FOUND");
        assertThat(get("/v1/exports/not-a-uuid", "op").code()).isEqualTo("INVALID_ID");

        // a consumer token limited to acme exports acme with a lease it took (not the operator's), and may not read
        // globex's export
        assertThat(startExport("c-acme", s, lease).code()).isEqualTo("FORBIDDEN");
        UUID own = UUID.fromString(post("/v1/retention/leases", "c-acme", Map.of("tenant", "acme", "catalog",
                s.catalog(), "epoch", 1, "ttlSeconds", 300, "owner", "export test")).text("leaseId"));
        Response mine = startExport("c-acme", s, own);
        assertThat(mine.status()).isEqualTo(202);
        assertThat(awaitEnd(mine.text("exportId")).path("status").stringValue()).isEqualTo("READY");
        String theirs = startExport("op", otherTenant, otherLease).text("exportId");
        awaitEnd(theirs);
        assertThat(get("/v1/exports/" + theirs, "c-acme").code()).isEqualTo("FORBIDDEN");
        assertThat(get("/v1/exports/" + theirs + "/manifest", "c-acme").code()).isEqualTo("FORBIDDEN");
        assertThat(get("/v1/exports/" + theirs, "w").code()).isEqualTo("FORBIDDEN");
    }

    private void assertAborted(JsonNode done, String reason) throws Exception {
        String id = done.path("exportId").stringValue();
        assertThat(done.path("status").stringValue()).as(done.toString()).isEqualTo("ABORTED");
        assertThat(done.path("error").stringValue()).contains(reason);
        assertThat(done.has("manifestKey")).isFalse();
        Response manifest = get("/v1/exports/" + id + "/manifest", "op");
        assertThat(manifest.status()).isEqualTo(409);
        assertThat(manifest.code()).isEqualTo("EXPORT_NOT_READY");
        String prefix = jdbc.sql("SELECT object_prefix FROM snapshot_export WHERE export_id = ?")
                .params(UUID.fromString(id)).query(String.class).single();
        List<String> left = objectKeys(prefix);
        assertThat(left).as("objects of an aborted export are removed").isEmpty();
        assertThat(store.exists(prefix + ExportFormat.MANIFEST_NAME)).isFalse();
    }

    /** What an epoch rotation will do (the endpoint does not exist yet): fence the open cursor, open epoch 2. */
    private void rotateEpochInSql(StreamId s) {
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL")
                .params(s.tenant(), s.catalog()).update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES (?, ?, 2)")
                .params(s.tenant(), s.catalog()).update();
    }

    private void awaitExpiredInDatabase(UUID lease) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (jdbc.sql("SELECT expires_at <= clock_timestamp() FROM retention_lease WHERE lease_id = ?")
                    .params(lease).query(Boolean.class).single()) {
                return;
            }
            sleep(50);
        }
        throw new AssertionError("lease " + lease + " did not expire");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
