package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.time.Duration;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;

import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * docs/design.md step 3 under load: exports taken while writer threads keep changing every table hold exactly the
 * accepted state at their cursor W, proven against state recomputed from the revision history at W, and exactly the
 * revision history through W; their objects load with a plain {@code COPY … FROM STDIN}.
 */
class ExportConsistencyIT extends AbstractExportIT {

    private static final int WRITERS = 4;
    private static final int EXPORTS = 20;

    @Autowired
    DataSource dataSource;

    @Test
    void everyExportUnderConcurrentWritesHoldsExactlyTheStateAtItsCursor() throws Exception {
        StreamId s = new StreamId("acme", "busy");
        writeItems(s, 40);
        long seed = System.nanoTime();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < WRITERS; t++) {
            Random random = new Random(seed + t);
            writers.add(pool.submit(() -> {
                while (!stop.get()) {
                    try {
                        writer.writeAll(s, randomTransactions(s, random));
                        writes.incrementAndGet();
                    } catch (ApiException expected) {
                        // a delete of a deleted item or a release of a revision that moved on: rolled back alone
                    }
                }
                return null;
            }));
        }
        List<Long> cursors = new ArrayList<>();
        ExportManifest last = null;
        String lastKey = null;
        try {
            for (int i = 0; i < EXPORTS; i++) {
                long before = writes.get();
                JsonNode done = export(s);
                assertThat(done.path("status").stringValue()).as("seed %d: %s", seed, done).isEqualTo("READY");
                ExportManifest manifest = manifest(done.path("exportId").stringValue());
                String key = done.path("manifestKey").stringValue();
                long w = manifest.cursor();
                assertThat(w).isEqualTo(done.path("cursor").longValue());
                assertThat(manifest.epoch()).isEqualTo(1);
                assertThat(manifest.chainDigest()).isEqualTo(digestAt(s, w));

                // every object verifies (bytes, SHA-256, rows) and checksums to what the manifest says ...
                Map<Table, TableChecksum> fromObjects = ExportObjectReader.verify(store, key, manifest);
                // ... which is the state recomputed from the revision history at exactly W
                assertThat(fromObjects).as("seed %d, export %d at W=%d", seed, i, w).isEqualTo(stateAt(s, w));
                // ... and the revision history in it is exactly every revision made at or below W
                assertThat(exportedHistory(manifest, key)).as("seed %d, history of export %d at W=%d", seed, i, w)
                        .isEqualTo(historyAt(s, w));
                // the writers were never stopped by the export (on a loaded machine one export can finish before
                // the next write commits, so this waits for that write rather than requiring it inside the export)
                int export = i;
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(writes.get())
                        .as("writers keep writing across export %d", export).isGreaterThan(before));
                cursors.add(w);
                last = manifest;
                lastKey = key;
            }
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        for (Future<?> f : writers) {
            f.get();
        }
        assertThat(cursors).isSorted().doesNotHaveDuplicates();
        assertThat(last.stateChecksum().get(Table.items).rows()).isPositive();
        assertThat(last.stateChecksum().get(Table.releases).rows()).isPositive();
        assertLoadsWithCopy(last, lastKey);
    }

    /** The product's path: gunzip each object straight into {@code COPY … FROM STDIN}, then checksum the copy. */
    private void assertLoadsWithCopy(ExportManifest manifest, String manifestKey) throws Exception {
        jdbc.sql("""
                CREATE TABLE loaded_items (item_id text, revision int, deleted boolean, attributes jsonb);
                CREATE TABLE loaded_mappings (mapping_id text, revision int, source text, target text);
                CREATE TABLE loaded_policies (policy_id text, revision int, rules jsonb);
                CREATE TABLE loaded_releases (release_id text, revision int, visibility text, items jsonb);
                """).update();
        try (Connection c = dataSource.getConnection()) {
            for (Table t : Table.values()) {
                String columns = String.join(", ", ExportFormat.columns(t));
                try (InputStream in = new GZIPInputStream(store.get(ExportFormat.siblingKey(manifestKey,
                        manifest.object(t).name())))) {
                    long rows = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY loaded_" + t.name()
                            + " (" + columns + ") FROM STDIN WITH " + ExportFormat.COPY_OPTIONS, in);
                    assertThat(rows).isEqualTo(manifest.object(t).rows());
                }
            }
        }
        for (Table t : Table.values()) {
            var acc = new com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator(t);
            int n = t.columns().size();
            String select = t.columns().stream().map(col -> col.kind().name().equals("JSON")
                    ? col.name() + "::text" : col.name()).reduce((a, b) -> a + ", " + b).orElseThrow();
            jdbc.sql("SELECT " + select + " FROM loaded_" + t.name() + " ORDER BY " + t.key() + " COLLATE \"C\"")
                    .query(rs -> {
                        Object[] row = new Object[n];
                        for (int i = 0; i < n; i++) {
                            row[i] = rs.getObject(i + 1);
                        }
                        acc.row(row);
                    });
            assertThat(acc.finish()).as("loaded %s", t).isEqualTo(manifest.stateChecksum().get(t));
        }
    }

    private List<String> exportedHistory(ExportManifest manifest, String key) throws Exception {
        List<String> rows = new ArrayList<>();
        ExportObjectReader.read(store, key, manifest.object(ExportTable.revisions), f -> rows.add(String.join("|", f)));
        return rows;
    }

    private List<String> historyAt(StreamId s, long w) {
        return jdbc.sql("""
                SELECT concat_ws('|', aggregate_type, aggregate_id, revision, CASE WHEN deleted THEN 't' ELSE 'f' END,
                                 content::text, epoch, position, event_id)
                  FROM accepted_revision WHERE tenant = ? AND catalog = ? AND epoch = 1 AND position <= ?
                 ORDER BY aggregate_type COLLATE "C", aggregate_id COLLATE "C", revision
                """).params(s.tenant(), s.catalog(), w).query(String.class).list();
    }

    private String digestAt(StreamId s, long position) {
        return jdbc.sql("SELECT chain_digest FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = 1 "
                + "AND position = ?").params(s.tenant(), s.catalog(), position).query(String.class).single();
    }

    /** One to three logical transactions of random changes to every table, awkward text included. */
    private List<List<Change>> randomTransactions(StreamId s, Random r) {
        List<List<Change>> txs = new ArrayList<>();
        int count = 1 + r.nextInt(3);
        for (int t = 0; t < count; t++) {
            List<Change> changes = new ArrayList<>();
            int size = 1 + r.nextInt(3);
            for (int i = 0; i < size; i++) {
                changes.add(randomChange(s, r));
            }
            txs.add(changes);
        }
        return txs;
    }

    private Change randomChange(StreamId s, Random r) {
        int op = r.nextInt(10);
        String item = "sku-" + r.nextInt(60);
        if (op < 5) {
            return ChangeParser.upsertItem(item, json.readTree("{\"attributes\":{\"name\":\"Zoë, \\\"" + r.nextInt()
                    + "\\\"\\nline\",\"price\":" + r.nextInt(1000) + ",\"tags\":[\"a\",\"b\"]}}"));
        }
        if (op == 5) {
            return ChangeParser.deleteItem(item, null);
        }
        if (op == 6) {
            return ChangeParser.upsertMapping("map:" + r.nextInt(10), json.readTree(
                    "{\"source\":\"col,our\\n\\\"x\\\" " + r.nextInt(5) + "\",\"target\":\"" + r.nextInt(9) + "\"}"));
        }
        if (op == 7) {
            return ChangeParser.upsertPolicy("pol." + r.nextInt(5), json.readTree(
                    "{\"rules\":{\"max\":" + r.nextInt(100) + ",\"z\":{\"ü\":[1,2,3]}}}"));
        }
        List<Map<String, Object>> refs = jdbc.sql("SELECT item_id, revision FROM item WHERE tenant = ? AND catalog = ? "
                + "AND NOT deleted ORDER BY random() LIMIT 3").params(s.tenant(), s.catalog()).query().listOfRows();
        StringBuilder items = new StringBuilder("[");
        for (Map<String, Object> ref : refs) {
            items.append(items.length() > 1 ? "," : "").append("{\"itemId\":\"").append(ref.get("item_id"))
                    .append("\",\"revision\":").append(ref.get("revision")).append('}');
        }
        return ChangeParser.putRelease("rel-" + r.nextInt(5), json.readTree("{\"visibility\":\""
                + (r.nextBoolean() ? "PUBLIC" : "PRIVATE") + "\",\"items\":" + items + "]}"));
    }
}
