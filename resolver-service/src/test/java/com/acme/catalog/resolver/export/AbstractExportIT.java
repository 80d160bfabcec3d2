package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.support.PublishMarks;
import com.acme.catalog.resolver.support.ResolverIT;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Export ITs: objects go to a directory under java.io.tmpdir (a class may override the store), the scheduled pruner and
 * status refresh are off and min-age is 0, so each test decides when pruning happens.
 */
@TestPropertySource(properties = {"retention.prune.enabled=false", "retention.status.enabled=false",
        "retention.min-age=PT0S", "object.store.uri=file:${java.io.tmpdir}/resolver-export-it"})
abstract class AbstractExportIT extends ResolverIT {

    @Autowired
    protected StreamWriter writer;
    @Autowired
    protected JdbcClient jdbc;
    @Autowired
    protected ObjectMapper json;
    @Autowired
    protected ObjectStore store;

    /** Commits {@code n} item upserts (ids sku-0..sku-12), one logical transaction each, in one commit. */
    protected long writeItems(StreamId s, int n) {
        List<List<Change>> txs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            txs.add(List.of(ChangeParser.upsertItem("sku-" + (i % 13),
                    json.readTree("{\"attributes\":{\"n\":" + i + ",\"name\":\"item, \\\"" + i + "\\\"\"}}"))));
        }
        var results = writer.writeAll(s, txs);
        return results.get(results.size() - 1).lastPosition();
    }

    /** What the relay will do: publishes events through {@code position} now (database time), one batch per epoch. */
    protected void publishThrough(StreamId s, long position) {
        PublishMarks.publishThrough(jdbc, s, position, Duration.ZERO);
    }

    /** Runs the pruner for the stream through the retention API; returns pruned-through P afterwards. */
    protected long prune(StreamId s) {
        Response r = post("/v1/retention/prune", "op", Map.of("tenant", s.tenant(), "catalog", s.catalog()));
        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        return r.number("prunedThrough");
    }

    protected UUID lease(StreamId s, long epoch, long ttlSeconds) {
        Response r = post("/v1/retention/leases", "op", Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "epoch", epoch, "ttlSeconds", ttlSeconds, "owner", "export test"));
        assertThat(r.status()).as(r.body().toString()).isEqualTo(201);
        return UUID.fromString(r.text("leaseId"));
    }

    protected Response startExport(String token, StreamId s, UUID leaseId) {
        return post("/v1/exports", token, Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "leaseId", leaseId.toString()));
    }

    /** Polls the export until it leaves RUNNING; returns its final status document. */
    protected JsonNode awaitEnd(String exportId) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Response r = get("/v1/exports/" + exportId, "op");
            assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
            if (!"RUNNING".equals(r.text("status"))) {
                return r.body();
            }
            sleep(20);
        }
        throw new AssertionError("export " + exportId + " still RUNNING after 60 s");
    }

    /** Leases, exports and waits: the final status document. */
    protected JsonNode export(StreamId s) {
        UUID lease = lease(s, 1, 300);
        Response started = startExport("op", s, lease);
        assertThat(started.status()).as(started.body().toString()).isEqualTo(202);
        return awaitEnd(started.text("exportId"));
    }

    protected ExportManifest manifest(String exportId) throws IOException {
        Response r = get("/v1/exports/" + exportId + "/manifest", "op");
        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        return ExportManifest.parse(r.raw().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Accepted state at exactly position {@code w} of epoch 1, recomputed from the revision history (each
     * aggregate's latest revision at or below W), under the checksum profile.
     */
    protected Map<Table, TableChecksum> stateAt(StreamId s, long w) {
        Map<Table, String> fields = Map.of(
                Table.items, "revision, deleted, CASE WHEN deleted THEN '{}' ELSE (content->'attributes')::text END",
                Table.mappings, "revision, content->>'source', content->>'target'",
                Table.policies, "revision, (content->'rules')::text",
                Table.releases, "revision, content->>'visibility', (content->'items')::text");
        Map<Table, String> types = Map.of(Table.items, "item", Table.mappings, "mapping", Table.policies, "policy",
                Table.releases, "release");
        Map<Table, TableChecksum> out = new EnumMap<>(Table.class);
        for (Table t : Table.values()) {
            Accumulator acc = new Accumulator(t);
            int columns = t.columns().size();
            jdbc.sql("""
                    SELECT * FROM (
                        SELECT DISTINCT ON (aggregate_id) aggregate_id, %s FROM accepted_revision
                         WHERE tenant = ? AND catalog = ? AND aggregate_type = ? AND epoch = 1 AND position <= ?
                         ORDER BY aggregate_id, revision DESC) latest
                     ORDER BY aggregate_id COLLATE "C"
                    """.formatted(fields.get(t)))
                    .params(s.tenant(), s.catalog(), types.get(t), w)
                    .query(rs -> {
                        Object[] row = new Object[columns];
                        for (int i = 0; i < columns; i++) {
                            row[i] = rs.getObject(i + 1);
                        }
                        acc.row(row);
                    });
            out.put(t, acc.finish());
        }
        return out;
    }

    protected List<String> objectKeys(String prefix) throws IOException {
        return store.list(prefix);
    }

    /** Runs {@code r} on another thread: an observer runs inside the export's read-only snapshot transaction. */
    protected static void elsewhere(Runnable r) {
        CompletableFuture.runAsync(r).join();
    }

    protected static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
