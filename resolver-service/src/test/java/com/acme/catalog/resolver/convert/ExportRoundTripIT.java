package com.acme.catalog.resolver.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.objectstore.FileSystemObjectStore;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.bootstrap.BootstrapImporter;
import com.acme.catalog.resolver.bootstrap.ImportListener;
import com.acme.catalog.resolver.bootstrap.ImportOptions;
import com.acme.catalog.resolver.bootstrap.ImportReport;
import com.acme.catalog.resolver.support.ResolverIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Export → convert → import into another stream: the imported stream answers the export's {@code accepted-state-v1}
 * checksum (and the source's {@code public-view-v1}), and the converted file carries nothing of the source's history:
 * no source event id or transaction id, no transaction member, and each source revision became exactly one event
 * (a source transaction of several changes became as many singleton transactions).
 */
@TestPropertySource(properties = {"retention.prune.enabled=false", "retention.status.enabled=false",
        "object.store.uri=file:${java.io.tmpdir}/resolver-convert-it"})
class ExportRoundTripIT extends ResolverIT {

    @Autowired
    BootstrapImporter importer;
    @Autowired
    ObjectStore store;
    @Autowired
    JdbcClient jdbc;

    @TempDir
    Path dir;

    @Test
    void anImportOfTheConvertedExportAnswersTheExportsChecksums() throws IOException {
        StreamId source = new StreamId("acme", "round-source");
        StreamId target = new StreamId("acme", "round-target");
        history(source);
        JsonNode export = export(source);
        String manifestKey = export.get("manifestKey").stringValue();

        Path events = dir.resolve("events.json");
        ConversionSummary summary = SnapshotConverter.convertExport(store, manifestKey, events, 5L);
        assertThat(summary.source().exportId()).isEqualTo(export.get("exportId").stringValue());
        long revisions = jdbc.sql("SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = "
                + "'round-source'").query(Long.class).single();
        assertThat(summary.events()).as("one event per source revision").isEqualTo(revisions);

        ImportReport imported = importer.importFile(target, events, ImportOptions.defaults(), ImportListener.NONE);
        assertThat(imported.status()).isEqualTo(ImportReport.Status.COMPLETED);

        JsonNode accepted = get("/v1/streams/acme/round-target/state-checksum", "op").body();
        for (Map.Entry<String, com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum> t
                : summary.expectedStateChecksum().entrySet()) {
            JsonNode table = accepted.path("tables").path(t.getKey());
            assertThat(table.path("rows").asLong()).as(t.getKey()).isEqualTo(t.getValue().rows());
            assertThat(table.path("sha256").stringValue()).as(t.getKey()).isEqualTo(t.getValue().sha256());
        }
        String profile = "?profile=public-view-v1";
        assertThat(get("/v1/streams/acme/round-target/state-checksum" + profile, "op").body().get("tables"))
                .isEqualTo(get("/v1/streams/acme/round-source/state-checksum" + profile, "op").body().get("tables"));

        String text = Files.readString(events);
        assertThat(text).doesNotContain("transaction").doesNotContain("position").doesNotContain("epoch")
                .doesNotContain("chainDigest");
        List<String> sourceIds = jdbc.sql("""
                SELECT event_id::text FROM outbox WHERE tenant = 'acme' AND catalog = 'round-source'
                UNION ALL SELECT transaction_id::text FROM outbox WHERE tenant = 'acme' AND catalog = 'round-source'
                """).query(String.class).list();
        assertThat(sourceIds).hasSizeGreaterThan(3000);
        for (String id : sourceIds) {
            assertThat(text).as("source id %s", id).doesNotContain(id);
        }
        // the source's 3-change transaction became 3 singleton transactions of the target
        Set<Object> targetTransactions = new HashSet<>(jdbc.sql("SELECT transaction_id FROM outbox WHERE tenant = "
                + "'acme' AND catalog = 'round-target'").query(Object.class).list());
        assertThat(targetTransactions).hasSize((int) revisions);
        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'round-target' AND "
                + "(transaction_ordinal <> 0 OR transaction_count <> 1)").query(Long.class).single()).isZero();
    }

    @Test
    void anExportThatIsNotWhatItsManifestPromisesIsRejectedAndNothingIsWritten() throws IOException {
        StreamId source = new StreamId("acme", "round-corrupt");
        history(source);
        String manifestKey = export(source).get("manifestKey").stringValue();
        Path copy = dir.resolve("copy");
        FileSystemObjectStore local = new FileSystemObjectStore(copy);
        String folder = manifestKey.substring(0, manifestKey.lastIndexOf('/') + 1);
        for (String key : store.list(folder)) {
            byte[] bytes;
            try (var in = store.get(key)) {
                bytes = in.readAllBytes();
            }
            if (key.endsWith("revisions.csv.gz")) {
                bytes[bytes.length / 2] ^= 0x01;
            }
            byte[] stored = bytes;
            local.put(key, "application/octet-stream", out -> out.write(stored));
        }
        Path events = dir.resolve("corrupt.json");

        assertThatThrownBy(() -> SnapshotConverter.convertExport(local, manifestKey, events, 1L))
                .isInstanceOf(SnapshotRejectedException.class).hasMessageContaining("is not what its manifest promises")
                .hasMessageContaining("revisions.csv.gz");
        assertThat(events).doesNotExist();
    }

    /**
     * A varied history: a generated import (upserts, deletes, re-creations, mappings, policies, releases), then REST
     * writes: a transaction of three changes, an item updated after a release named it, a release naming an older
     * revision, a deletion.
     */
    private void history(StreamId s) {
        Path file = dir.resolve(s.catalog() + "-seed.json");
        SnapshotEventsGenerator.write(file, 3000, 17);
        importer.importFile(s, file, ImportOptions.defaults().withSynchronousCommitOff(true), ImportListener.NONE);
        String base = "/v1/streams/" + s.tenant() + "/" + s.catalog();
        ok(post(base + "/transactions", "w", Map.of("changes", List.of(
                Map.of("op", "upsertItem", "itemId", "tx-a", "attributes", Map.of("name", "A", "price", 1.5)),
                Map.of("op", "upsertItem", "itemId", "tx-b", "attributes", Map.of("name", "B")),
                Map.of("op", "upsertMapping", "mappingId", "tx-map", "source", "s", "target", "t")))));
        ok(put(base + "/releases/rel-old", "w", Map.of("visibility", "PUBLIC",
                "items", List.of(Map.of("itemId", "tx-a", "revision", 1)))));
        ok(put(base + "/items/tx-a", "w", Map.of("attributes", Map.of("name", "A2", "tags", List.of("x", "y")))));
        ok(put(base + "/releases/rel-new", "w", Map.of("visibility", "PUBLIC",
                "items", List.of(Map.of("itemId", "tx-a", "revision", 1), Map.of("itemId", "tx-b", "revision", 1)))));
        ok(delete(base + "/items/tx-b", "w"));
        ok(put(base + "/policies/tx-pol", "w", Map.of("rules", Map.of("min", 0.75, "nested", Map.of("k", true)))));
    }

    private JsonNode export(StreamId s) {
        Response lease = post("/v1/retention/leases", "op", Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "epoch", 1, "ttlSeconds", 300, "owner", "round trip"));
        assertThat(lease.status()).as(lease.raw()).isEqualTo(201);
        Response started = post("/v1/exports", "op", Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "leaseId", lease.text("leaseId")));
        assertThat(started.status()).as(started.raw()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Response r = get("/v1/exports/" + started.text("exportId"), "op");
            if (!"RUNNING".equals(r.text("status"))) {
                assertThat(r.text("status")).as(r.raw()).isEqualTo("READY");
                return r.body();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("export still RUNNING after 60 s");
    }

    private static void ok(Response r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
    }
}
