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
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;
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
    /** The columns COPY fills besides a current-state object's own: generation, epoch, position W (line tail). */
    private static final String COPY_TAIL_COLUMNS = ", generation_id, epoch, position";
    /** The history object's rows carry their own epoch and position: only the generation is appended. */
    private static final String COPY_HISTORY_TAIL_COLUMNS = ", generation_id";
    /** The projection table each export table is loaded into. */
    private static final Map<ExportTable, String> PARTITION_OF = Map.of(ExportTable.items, "item",
            ExportTable.mappings, "mapping", ExportTable.policies, "policy", ExportTable.releases, "release",
            ExportTable.revisions, "aggregate_revision");

    /** The items each release names, at the highest revision it lists. */
    private static final String SQL_DERIVE_RELEASE_ITEMS = """
            INSERT INTO release_item_g%1$d (generation_id, release_id, item_id, revision)
            SELECT r.generation_id, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
              FROM release_g%1$d r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
             GROUP BY r.generation_id, r.release_id, ref ->> 'itemId'
            """;
    /**
     * Per item named by a PUBLIC release, the latest such release (greatest (epoch, position) of its current
     * revision) and the revision it names: the winner of {@code ProjectionRepository}'s public-view rule, before the
     * item's own state is looked at. {@code %2$s}: an extra condition on the item id.
     */
    private static final String WINNERS = """
            SELECT DISTINCT ON (ri.item_id) ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch,
                   r.position
              FROM release_item_g%1$d ri JOIN release_g%1$d r ON r.release_id = ri.release_id
             WHERE r.visibility = 'PUBLIC' %2$s
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    /**
     * One half ({@code %2$d}: 0 or 1, by a hash of the item id) of the public view of the items whose winning
     * release names their current revision (the usual case), with the attributes of the item row itself: this
     * needs no revision history, so it runs while the history is still being indexed. ShadowLoaderIT checks that
     * the two statements together equal {@code ProjectionRepository}'s rule.
     */
    private static final String SQL_PUBLIC_VIEW = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position, i.attributes,
                   setweight(to_tsvector('english', coalesce(i.attributes ->> 'name', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', i.attributes, '["string"]'), 'B')
                   || setweight(to_tsvector('simple', w.item_id), 'C')
              FROM (%3$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision = w.revision AND NOT i.deleted
            """;
    /**
     * The rest of the public view: items whose winning release names an older revision than their current one
     * (updated after the release), with the attributes of that revision from the history, looked up by its
     * primary key (built before this runs). A winner naming a deletion revision publishes nothing; the resolver
     * never accepts such a release.
     */
    private static final String SQL_PUBLIC_VIEW_OLDER_REVISIONS = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position,
                   a.content -> 'attributes',
                   setweight(to_tsvector('english', coalesce(a.content #>> '{attributes,name}', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', a.content -> 'attributes', '["string"]'), 'B')
                   || setweight(to_tsvector('simple', w.item_id), 'C')
              FROM (%2$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision <> w.revision AND NOT i.deleted
              JOIN aggregate_revision_g%1$d a ON a.aggregate_type = 'item' AND a.aggregate_id = w.item_id
                                             AND a.revision = w.revision AND NOT a.deleted
            """;
    private static final String SQL_SET_CURSOR = """
            UPDATE generation
               SET start_position = ?, start_digest = ?, chain_position = ?, chain_digest = ?, applied_position = ?,
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
            jdbc.sql(SQL_SET_CURSOR).params(w, manifest.chainDigest(), w, manifest.chainDigest(), w, w, g).update();
            steps.put("attach", (System.nanoTime() - t1) / 1_000_000);
            return new Loaded(g, rows, new LinkedHashMap<>(new TreeMap<>(steps)));
        });
    }

    /**
     * The two connections' work. A: items (copy, statistics), the revision history (copy), the releases'
     * positions from it, one half of the public view, the history's indexes and statistics, then the public rows
     * of items released at an older revision (they read the history by key). B: the small tables (mappings,
     * policies, releases, release items, the empty inbox and held events, their indexes), then the other half of
     * the public view and the item index, and once A's public rows are in, the public view's indexes. Each waits
     * for what it reads; a failure on one fails the other's next wait.
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
        final CompletableFuture<Void> historyCopied = new CompletableFuture<>();
        final CompletableFuture<Void> smallCopied = new CompletableFuture<>();
        final CompletableFuture<Void> positionsSet = new CompletableFuture<>();
        final CompletableFuture<Void> viewRestWritten = new CompletableFuture<>();
        final long startedAt = System.nanoTime();
        /** Each current-state CSV line's tail: generation, epoch, position W. */
        final byte[] tail;
        /** Each history line's tail: the generation. */
        final byte[] historyTail;
        /** The current revision of each release as the history streams by, with where it was made. */
        final ReleasePositions releasePositions = new ReleasePositions(jdbc);
        volatile long copiedAt;

        Fill(long g, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded, Map<String, Long> steps) {
            this.g = g;
            this.manifestKey = manifestKey;
            this.manifest = manifest;
            this.rowsLoaded = rowsLoaded;
            this.steps = steps;
            this.tail = ("," + g + "," + manifest.epoch() + "," + manifest.cursor() + "\n")
                    .getBytes(StandardCharsets.US_ASCII);
            this.historyTail = ("," + g + "\n").getBytes(StandardCharsets.US_ASCII);
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
                for (CompletableFuture<Void> f : List.of(itemsCopied, historyCopied, smallCopied, positionsSet,
                        viewRestWritten)) {
                    f.completeExceptionally(e);
                }
                throw e;
            }
        }

        private void itemsChain() {
            inTx(() -> {
                jdbc.sql(SQL_CREATE_TABLE).params(g, "item").query().singleRow();
                loaded(copy(ExportTable.items, g, manifestKey, manifest, tail, (record, length) -> { }));
                jdbc.sql("ANALYZE item_g" + g).update();
            });
            rowsLoaded.accept(rows.get());
            itemsCopied.complete(null);
            long h0 = System.nanoTime();
            inTx(() -> {
                jdbc.sql(SQL_CREATE_TABLE).params(g, "aggregate_revision").query().singleRow();
                loaded(copy(ExportTable.revisions, g, manifestKey, manifest, historyTail, releasePositions));
            });
            steps.put("history", (System.nanoTime() - h0) / 1_000_000);
            rowsLoaded.accept(rows.get());
            historyCopied.complete(null);
            copied();
            smallCopied.join();
            long d0 = System.nanoTime();
            inTx(() -> releasePositions.apply(g, manifest.exportId()));
            steps.put("derive", (System.nanoTime() - d0) / 1_000_000);
            positionsSet.complete(null);
            inTx(() -> jdbc.sql(SQL_PUBLIC_VIEW.formatted(g, 0, winners(0))).update());
            indexes("aggregate_revision");
            // the catch-up's statements look revisions up by key: give the planner the table's statistics
            inTx(() -> jdbc.sql("ANALYZE aggregate_revision_g" + g).update());
            inTx(() -> jdbc.sql(SQL_PUBLIC_VIEW_OLDER_REVISIONS.formatted(g, WINNERS.formatted(g, ""))).update());
            viewRestWritten.complete(null);
        }

        private void smallTablesChain() {
            inTx(() -> {
                for (ExportTable table : List.of(ExportTable.mappings, ExportTable.policies, ExportTable.releases)) {
                    jdbc.sql(SQL_CREATE_TABLE).params(g, PARTITION_OF.get(table)).query().singleRow();
                    loaded(copy(table, g, manifestKey, manifest, tail, (record, length) -> { }));
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
            indexes("mapping", "policy", "release_item", "inbox", "held_event");
            positionsSet.join();
            indexes("release");
            copied();
            inTx(() -> jdbc.sql(SQL_PUBLIC_VIEW.formatted(g, 1, winners(1))).update());
            indexes("item");
            viewRestWritten.join();
            steps.put("publicView", (System.nanoTime() - copiedAt) / 1_000_000);
            indexes("public_item");
        }

        private String winners(int half) {
            return WINNERS.formatted(g, "AND hashtext(ri.item_id) & 1 = " + half);
        }

        private synchronized void copied() {
            if (copiedAt == 0 && itemsCopied.isDone() && historyCopied.isDone() && smallCopied.isDone()) {
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

    /**
     * Streams one object into the generation's plain table; each CSV record gets {@code tail} (g, epoch, W for the
     * current-state tables, g for the history), and {@code seen} sees it as stored. A current-state table's
     * checksum must equal the manifest's {@code stateChecksum}.
     */
    private long copy(ExportTable table, long g, String manifestKey, ExportManifest manifest, byte[] tail,
            ExportObjectReader.RecordHandler seen) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        String columns = String.join(", ", manifest.object(table).columns())
                + (table == ExportTable.revisions ? COPY_HISTORY_TAIL_COLUMNS : COPY_TAIL_COLUMNS);
        String target = PARTITION_OF.get(table) + "_g" + g;
        try {
            CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY " + target + " (" + columns + ") FROM STDIN WITH (FORMAT csv, FREEZE)");
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 17);
            TableChecksum sum;
            try {
                // each record as the export stored it (PostgreSQL's own CSV), the tail's columns appended
                sum = ExportObjectReader.readRecords(store, manifestKey, manifest.object(table), (record, length) -> {
                    seen.record(record, length);
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
            if (table.profileTable().isPresent()) {
                TableChecksum expected = manifest.stateChecksum().get(table.profileTable().get());
                if (!sum.equals(expected)) {
                    throw new CorruptExportException("the " + table + " object has checksum " + sum
                            + " but the manifest's stateChecksum says " + expected);
                }
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
