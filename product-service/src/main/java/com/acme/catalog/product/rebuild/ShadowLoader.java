package com.acme.catalog.product.rebuild;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.objectstore.ObjectStore;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Loads an export into a new BUILDING generation (docs/rebuild.md). The generation's tables are created plain,
 * without secondary indexes and not attached, and filled on two connections at once, each step its own committed
 * transaction: every object is streamed through the verifying reader (size, SHA-256, row count, header, profile
 * checksum) and {@code COPY … FROM STDIN (FREEZE)} straight into its table (created in the same transaction) with
 * the export's epoch and position W; each table's checksum must equal the manifest's {@code stateChecksum}. Then
 * the derived rows (each aggregate's current revision, the items each release names) and the public view (in two
 * halves, one per connection: its search documents are the CPU cost) are computed set-wise, and every index is
 * built once over the loaded rows with {@code CREATE INDEX}, which lets the other connection keep reading the
 * table. Only the last transaction, the caller's, turns the unique indexes into the parents' constraints, attaches
 * the tables as the generation's partitions (the bound CHECK spares ATTACH its validation scan, the parents adopt
 * the indexes) and sets the generation's cursor to W with the manifest's chain digest. Readers follow the serving
 * pointer, so they never see the shadow before the cutover; until the attach nobody reads the plain tables at all.
 *
 * <p>A failure inside {@link #load} drops the tables and the generation row. A generation whose load or attach
 * never committed because the process stopped stays BUILDING with its plain tables; {@link GenerationRetirer}
 * drops them (the next holder of the stream's worker lease retires every BUILDING generation no rebuild runs).
 */
@Component
class ShadowLoader {

    private static final Logger log = LoggerFactory.getLogger(ShadowLoader.class);
    private static final String SQL_INSERT_GENERATION = """
            INSERT INTO generation (tenant, catalog, epoch, status) VALUES (?, ?, ?, 'BUILDING') RETURNING generation_id
            """;
    /** Bulk work in a load transaction: the memory index builds sort in; no JIT compile for one-off statements. */
    private static final String SQL_SESSION = """
            SELECT set_config('maintenance_work_mem', ?, true), set_config('jit', 'off', true)
            """;
    private static final String SQL_CREATE_TABLE = "SELECT create_generation_table(?, ?)";
    private static final String SQL_BUILD_INDEXES = "SELECT build_generation_index_parts(?, ?)";
    private static final String SQL_ATTACH = "SELECT attach_generation_tables_using_indexes(?)";
    private static final String SQL_TABLES = "SELECT unnest(generation_tables())";
    private static final String SQL_EXISTS = "SELECT to_regclass(?) IS NOT NULL";
    private static final String SQL_DELETE_GENERATION = "DELETE FROM generation WHERE generation_id = ?";
    /** The columns COPY fills besides the object's own: generation, epoch, position W (in the line's tail). */
    private static final String COPY_TAIL_COLUMNS = ", generation_id, epoch, position";
    /** The projection table each export table is loaded into. */
    private static final Map<Table, String> PARTITION_OF = Map.of(Table.items, "item", Table.mappings, "mapping",
            Table.policies, "policy", Table.releases, "release");

    /** Each aggregate's current revision; {@code %1$d} is the generation: every table named is its plain table. */
    private static final String SQL_DERIVE_REVISIONS = """
            INSERT INTO aggregate_revision_g%1$d (generation_id, aggregate_type, aggregate_id, revision, content,
                                                  deleted, epoch, position, event_id)
            SELECT generation_id, 'item', item_id, revision,
                   CASE WHEN deleted THEN '{}'::jsonb ELSE jsonb_build_object('attributes', attributes) END, deleted,
                   epoch, position, '00000000-0000-0000-0000-000000000000'::uuid FROM item_g%1$d
            UNION ALL
            SELECT generation_id, 'mapping', mapping_id, revision, jsonb_build_object('source', source, 'target', target),
                   false, epoch, position, '00000000-0000-0000-0000-000000000000'::uuid FROM mapping_g%1$d
            UNION ALL
            SELECT generation_id, 'policy', policy_id, revision, jsonb_build_object('rules', rules), false,
                   epoch, position, '00000000-0000-0000-0000-000000000000'::uuid FROM policy_g%1$d
            UNION ALL
            SELECT generation_id, 'release', release_id, revision,
                   jsonb_build_object('visibility', visibility, 'items', items), false, epoch, position,
                   '00000000-0000-0000-0000-000000000000'::uuid FROM release_g%1$d
            """;
    /** The items each release names, at the highest revision it lists. */
    private static final String SQL_DERIVE_RELEASE_ITEMS = """
            INSERT INTO release_item_g%1$d (generation_id, release_id, item_id, revision)
            SELECT r.generation_id, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
              FROM release_g%1$d r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
             GROUP BY r.generation_id, r.release_id, ref ->> 'itemId'
            """;
    /**
     * One half ({@code %2$d}: 0 or 1, by a hash of the item id) of the public view over the loaded rows: the rule
     * of {@code ProjectionRepository}'s public view (an item is public as the revision its latest PUBLIC release
     * names, unless deleted). The rule reads the item's content at that revision from {@code aggregate_revision};
     * right after the load that table holds exactly each item's current row ({@link #SQL_DERIVE_REVISIONS}), so the
     * item table itself is read here and the view need not wait for the revisions. ShadowLoaderIT checks the two
     * agree.
     */
    private static final String SQL_PUBLIC_VIEW = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT DISTINCT ON (ri.item_id)
                   ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch, r.position, i.attributes,
                   setweight(to_tsvector('english', coalesce(i.attributes ->> 'name', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', i.attributes, '["string"]'), 'B')
                   || setweight(to_tsvector('simple', ri.item_id), 'C')
              FROM release_item_g%1$d ri
              JOIN release_g%1$d r ON r.release_id = ri.release_id
              JOIN item_g%1$d i ON i.item_id = ri.item_id AND i.revision = ri.revision
             WHERE r.visibility = 'PUBLIC' AND NOT i.deleted AND hashtext(ri.item_id) & 1 = %2$d
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    private static final String SQL_SET_CURSOR = """
            UPDATE generation
               SET start_position = ?, chain_position = ?, chain_digest = ?, applied_position = ?,
                   highest_seen_position = ?, updated_at = now()
             WHERE generation_id = ?
            """;

    /**
     * What a load produced; {@code stepMillis}: {@code copy} (wall time until every object is read, verified and
     * COPY'd), {@code publicView} (wall time from then until both halves of the public view are written),
     * {@code derive} (the revision copy, on one connection while the other writes the public view), {@code indexes}
     * (every index build, summed over both connections), {@code attach} (constraints, attach, cursor),
     * {@code concurrent} (wall time of everything before the attach) and {@code connectionA}/{@code connectionB}
     * (wall time until each connection's share was done). The steps overlap: their sum exceeds the
     * load's wall time.
     */
    record Loaded(long generationId, long rows, Map<String, Long> stepMillis) {
    }

    private final TransactionTemplate tx;
    private final TransactionTemplate newTx;
    private final DataSource dataSource;
    private final JdbcClient jdbc;
    private final ObjectStore store;
    private final String maintenanceWorkMem;

    ShadowLoader(PlatformTransactionManager tm, DataSource dataSource, JdbcClient jdbc, ObjectStore store,
            @Value("${product.rebuild.maintenance-work-mem:256MB}") String maintenanceWorkMem) {
        this.tx = new TransactionTemplate(tm);
        this.newTx = new TransactionTemplate(tm);
        this.newTx.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.store = store;
        this.maintenanceWorkMem = maintenanceWorkMem;
    }

    /** {@link #load(StreamId, String, ExportManifest, LongConsumer, LongConsumer)} without the creation hook. */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded) {
        return load(stream, manifestKey, manifest, rowsLoaded, g -> { });
    }

    /**
     * Creates and commits a BUILDING generation, loads the export into its plain tables (committed step by step),
     * then attaches them and sets the cursor in the caller's transaction (a new one without it): the generation
     * joins its parents when that transaction commits.
     *
     * @param rowsLoaded told the running row count after each table
     * @param created    told the generation's id as soon as its row is committed, before anything is loaded: a
     *                   caller whose transaction rolls back after this method returned retires it
     * @throws CorruptExportException when an object or the state checksum is not what the manifest promises
     *                                (wrapped in {@link LoadFailedException}); then nothing is left behind
     */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded,
            LongConsumer created) {
        long t0 = System.nanoTime();
        long g = newTx.execute(s -> jdbc.sql(SQL_INSERT_GENERATION)
                .params(stream.tenant(), stream.catalog(), manifest.epoch()).query(Long.class).single());
        created.accept(g);
        Map<String, Long> steps = new ConcurrentHashMap<>();
        long rows;
        try {
            rows = new Fill(g, manifestKey, manifest, rowsLoaded, steps).run();
        } catch (RuntimeException e) {
            discard(g);
            throw e;
        }
        long t1 = System.nanoTime();
        steps.put("concurrent", (t1 - t0) / 1_000_000);
        return tx.execute(status -> {
            jdbc.sql(SQL_ATTACH).params(g).query().singleRow();
            long w = manifest.cursor();
            jdbc.sql(SQL_SET_CURSOR).params(w, w, manifest.chainDigest(), w, w, g).update();
            steps.put("attach", (System.nanoTime() - t1) / 1_000_000);
            return new Loaded(g, rows, new LinkedHashMap<>(new TreeMap<>(steps)));
        });
    }

    /**
     * The two connections' work. A: items (copy, statistics), one half of the public view, the revisions (index,
     * statistics). B: the small tables (mappings, policies, releases, release items, the empty inbox and held
     * events, their indexes), then the other half of the public view, its indexes and the item index. Each waits for what it
     * reads; a failure on one fails the other's next wait.
     */
    private final class Fill {
        final long g;
        final String manifestKey;
        final ExportManifest manifest;
        final LongConsumer rowsLoaded;
        final Map<String, Long> steps;
        final AtomicLong rows = new AtomicLong();
        final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        final CompletableFuture<Void> itemsCopied = new CompletableFuture<>();
        final CompletableFuture<Void> smallCopied = new CompletableFuture<>();
        final CompletableFuture<Void> viewHalfWritten = new CompletableFuture<>();
        final long startedAt = System.nanoTime();
        /** Each CSV line's tail: generation, epoch, position W. */
        final byte[] tail;
        volatile long copiedAt;

        Fill(long g, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded, Map<String, Long> steps) {
            this.g = g;
            this.manifestKey = manifestKey;
            this.manifest = manifest;
            this.rowsLoaded = rowsLoaded;
            this.steps = steps;
            this.tail = ("," + g + "," + manifest.epoch() + "," + manifest.cursor() + "\n")
                    .getBytes(StandardCharsets.US_ASCII);
        }

        long run() {
            ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "shadow-load-g" + g);
                t.setDaemon(true);
                return t;
            });
            try {
                CompletableFuture<Void> a = CompletableFuture.runAsync(() -> chain("connectionA", this::itemsChain),
                        pool);
                CompletableFuture<Void> b = CompletableFuture.runAsync(() -> chain("connectionB",
                        this::smallTablesChain), pool);
                try {
                    CompletableFuture.allOf(a, b).join();
                } catch (CompletionException e) {
                    Throwable cause = firstFailure.get() != null ? firstFailure.get() : e.getCause();
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    throw new LoadFailedException("loading export " + manifest.exportId() + ": " + cause, cause);
                }
                return rows.get();
            } finally {
                pool.shutdownNow();
            }
        }

        /** Runs one connection's work; {@code name}: the step its wall time is recorded as. */
        private void chain(String name, Runnable work) {
            try {
                work.run();
                steps.put(name, (System.nanoTime() - startedAt) / 1_000_000);
            } catch (RuntimeException | Error e) {
                firstFailure.compareAndSet(null, e);
                itemsCopied.completeExceptionally(e);
                smallCopied.completeExceptionally(e);
                viewHalfWritten.completeExceptionally(e);
                throw e;
            }
        }

        private void itemsChain() {
            inTx(() -> {
                jdbc.sql(SQL_CREATE_TABLE).params(g, "item").query().singleRow();
                loaded(copy(Table.items, g, manifestKey, manifest, tail));
                jdbc.sql("ANALYZE item_g" + g).update();
            });
            rowsLoaded.accept(rows.get());
            itemsCopied.complete(null);
            copied();
            smallCopied.join();
            inTx(() -> jdbc.sql(SQL_PUBLIC_VIEW.formatted(g, 0)).update());
            viewHalfWritten.complete(null);
            long d0 = System.nanoTime();
            inTx(() -> {
                jdbc.sql(SQL_CREATE_TABLE).params(g, "aggregate_revision").query().singleRow();
                jdbc.sql(SQL_DERIVE_REVISIONS.formatted(g)).update();
            });
            steps.put("derive", (System.nanoTime() - d0) / 1_000_000);
            indexes("aggregate_revision");
            // the catch-up's statements look revisions up by key: give the planner the table's statistics
            inTx(() -> jdbc.sql("ANALYZE aggregate_revision_g" + g).update());
        }

        private void smallTablesChain() {
            inTx(() -> {
                for (Table table : List.of(Table.mappings, Table.policies, Table.releases)) {
                    jdbc.sql(SQL_CREATE_TABLE).params(g, PARTITION_OF.get(table)).query().singleRow();
                    loaded(copy(table, g, manifestKey, manifest, tail));
                }
                for (String table : List.of("release_item", "public_item", "inbox", "held_event")) {
                    jdbc.sql(SQL_CREATE_TABLE).params(g, table).query().singleRow();
                }
                jdbc.sql(SQL_DERIVE_RELEASE_ITEMS.formatted(g)).update();
                jdbc.sql("ANALYZE release_g" + g).update();
                jdbc.sql("ANALYZE release_item_g" + g).update();
            });
            rowsLoaded.accept(rows.get());
            smallCopied.complete(null);
            indexes("mapping", "policy", "release", "release_item", "inbox", "held_event");
            itemsCopied.join();
            copied();
            inTx(() -> jdbc.sql(SQL_PUBLIC_VIEW.formatted(g, 1)).update());
            viewHalfWritten.join();
            steps.put("publicView", (System.nanoTime() - copiedAt) / 1_000_000);
            indexes("public_item", "item");
        }

        private synchronized void copied() {
            if (copiedAt == 0 && itemsCopied.isDone() && smallCopied.isDone()) {
                copiedAt = System.nanoTime();
                steps.put("copy", (copiedAt - startedAt) / 1_000_000);
            }
        }

        private void loaded(long tableRows) {
            rows.addAndGet(tableRows);
        }

        private void indexes(String... tables) {
            long t0 = System.nanoTime();
            inTx(() -> {
                for (String table : tables) {
                    jdbc.sql(SQL_BUILD_INDEXES).params(g, table).query().singleRow();
                }
            });
            steps.merge("indexes", (System.nanoTime() - t0) / 1_000_000, Long::sum);
        }

        private void inTx(Runnable work) {
            newTx.executeWithoutResult(s -> {
                jdbc.sql(SQL_SESSION).params(maintenanceWorkMem).query().singleRow();
                work.run();
            });
        }
    }

    /** Drops what a failed load created: its tables and its generation row. */
    private void discard(long g) {
        try {
            newTx.executeWithoutResult(s -> {
                for (String table : jdbc.sql(SQL_TABLES).query(String.class).list()) {
                    String part = table + "_g" + g;
                    if (jdbc.sql(SQL_EXISTS).params(part).query(Boolean.class).single()) {
                        jdbc.sql("DROP TABLE " + part).update();
                    }
                }
                jdbc.sql(SQL_DELETE_GENERATION).params(g).update();
            });
        } catch (RuntimeException e) {
            // the generation stays BUILDING: the retirer drops it with the next holder of the worker lease
            log.warn("could not drop the tables of failed shadow generation {}: {}", g, e.toString());
        }
    }

    /** Streams one object into the generation's plain table; each CSV record gets {@code tail} (g, epoch, W). */
    private long copy(Table table, long g, String manifestKey, ExportManifest manifest, byte[] tail) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        String columns = String.join(", ", manifest.object(table).columns()) + COPY_TAIL_COLUMNS;
        String target = PARTITION_OF.get(table) + "_g" + g;
        try {
            CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY " + target + " (" + columns + ") FROM STDIN WITH (FORMAT csv, FREEZE)");
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 17);
            TableChecksum sum;
            try {
                // each record as the export stored it (PostgreSQL's own CSV), the tail's columns appended
                sum = ExportObjectReader.readRecords(store, manifestKey, manifest.object(table), (record, length) -> {
                    buffer.write(record, 0, length);
                    buffer.write(tail, 0, tail.length);
                    if (buffer.size() >= 1 << 16) {
                        flush(in, buffer);
                    }
                });
                flush(in, buffer);
                in.endCopy();
            } finally {
                if (in.isActive()) {
                    in.cancelCopy();
                }
            }
            TableChecksum expected = manifest.stateChecksum().get(table);
            if (!sum.equals(expected)) {
                throw new CorruptExportException("the " + table + " object has checksum " + sum
                        + " but the manifest's stateChecksum says " + expected);
            }
            return sum.rows();
        } catch (IOException | SQLException e) {
            throw new LoadFailedException("loading " + table + " of export " + manifest.exportId() + ": "
                    + e.getMessage(), e);
        }
    }

    private static void flush(CopyIn in, ByteArrayOutputStream buffer) throws IOException {
        try {
            byte[] bytes = buffer.toByteArray();
            if (bytes.length > 0) {
                in.writeToCopy(bytes, 0, bytes.length);
            }
            buffer.reset();
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** The export could not be loaded: it is corrupt or the database refused it. */
    static final class LoadFailedException extends RuntimeException {
        LoadFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
