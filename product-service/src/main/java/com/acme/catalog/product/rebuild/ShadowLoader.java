package com.acme.catalog.product.rebuild;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.projection.GenerationRepository;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Loads an export into a new BUILDING generation, all in one transaction (its tables are created in it too, so any
 * failure leaves nothing behind, and nobody else sees them before the commit). The generation's tables are created
 * plain, without secondary indexes and not attached: every object is streamed through the verifying reader (size,
 * SHA-256, row count, header, profile checksum) and {@code COPY … FROM STDIN (FREEZE)} straight into its table with
 * the export's epoch and position W; each table's checksum must equal the manifest's {@code stateChecksum}. Then
 * the derived rows (each aggregate's current revision, the items each release names) and the public view are
 * computed set-wise, every index is built once over the loaded rows (btree sorts, the search GIN index in one
 * build), and the tables are attached as the generation's partitions: the bound CHECK spares ATTACH its
 * validation scan and the parents adopt the indexes. The generation's cursor is set to W with the manifest's chain
 * digest. Readers follow the serving pointer, so they never see the shadow before the cutover.
 */
@Component
class ShadowLoader {

    private static final String SQL_INSERT_GENERATION = """
            INSERT INTO generation (tenant, catalog, epoch, status) VALUES (?, ?, ?, 'BUILDING') RETURNING generation_id
            """;
    private static final String SQL_MAINTENANCE_MEMORY = "SELECT set_config('maintenance_work_mem', ?, true)";
    /** The columns COPY fills besides the object's own: generation, epoch, position W (in the line's tail). */
    private static final String COPY_TAIL_COLUMNS = ", generation_id, epoch, position";
    /** The projection table each export table is loaded into. */
    private static final Map<Table, String> PARTITION_OF = Map.of(Table.items, "item", Table.mappings, "mapping",
            Table.policies, "policy", Table.releases, "release");

    /** Derived rows; {@code %1$d} is the generation: every table named is that generation's plain table. */
    private static final String[] SQL_DERIVE = {
        """
        INSERT INTO aggregate_revision_g%1$d (generation_id, aggregate_type, aggregate_id, revision, content, deleted,
                                              epoch, position, event_id)
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
        """,
        // the items each release names, at the highest revision it lists
        """
        INSERT INTO release_item_g%1$d (generation_id, release_id, item_id, revision)
        SELECT r.generation_id, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
          FROM release_g%1$d r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
         GROUP BY r.generation_id, r.release_id, ref ->> 'itemId'
        """};
    /** The tables the public view is computed from; analysed first so the planner joins them by hashing. */
    private static final String[] PUBLIC_VIEW_INPUTS = {"item", "release", "release_item", "aggregate_revision"};
    /**
     * The public view over the loaded rows: the rule of {@code ProjectionRepository}'s public view (an item is
     * public as the revision its latest PUBLIC release names, unless deleted), over this generation's plain tables.
     * ShadowLoaderIT checks the two agree.
     */
    private static final String SQL_PUBLIC_VIEW = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT DISTINCT ON (ri.item_id)
                   ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch, r.position,
                   ar.content -> 'attributes',
                   setweight(to_tsvector('english', coalesce(ar.content #>> '{attributes,name}', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', ar.content -> 'attributes', '["string"]'), 'B')
                   || setweight(to_tsvector('simple', ri.item_id), 'C')
              FROM release_item_g%1$d ri
              JOIN release_g%1$d r ON r.release_id = ri.release_id
              JOIN item_g%1$d i ON i.item_id = ri.item_id
              JOIN aggregate_revision_g%1$d ar ON ar.aggregate_type = 'item' AND ar.aggregate_id = ri.item_id
                                              AND ar.revision = ri.revision
             WHERE r.visibility = 'PUBLIC' AND NOT i.deleted AND NOT ar.deleted
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    private static final String SQL_SET_CURSOR = """
            UPDATE generation
               SET start_position = ?, chain_position = ?, chain_digest = ?, applied_position = ?,
                   highest_seen_position = ?, updated_at = now()
             WHERE generation_id = ?
            """;

    /**
     * What a load produced; {@code stepMillis}: wall time of {@code copy} (read, verify and COPY every object),
     * {@code derive} (revisions, release items, statistics), {@code publicView}, {@code indexes}, {@code attach}.
     */
    record Loaded(long generationId, long rows, Map<String, Long> stepMillis) {
    }

    private final TransactionTemplate tx;
    private final DataSource dataSource;
    private final JdbcClient jdbc;
    private final ObjectStore store;
    private final GenerationRepository generations;
    private final String maintenanceWorkMem;

    ShadowLoader(PlatformTransactionManager tm, DataSource dataSource, JdbcClient jdbc, ObjectStore store,
            GenerationRepository generations,
            @Value("${product.rebuild.maintenance-work-mem:256MB}") String maintenanceWorkMem) {
        this.tx = new TransactionTemplate(tm);
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.store = store;
        this.generations = generations;
        this.maintenanceWorkMem = maintenanceWorkMem;
    }

    /**
     * @param rowsLoaded told the running row count after each table
     * @throws CorruptExportException when an object or the state checksum is not what the manifest promises
     */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded) {
        return tx.execute(status -> {
            Map<String, Long> steps = new LinkedHashMap<>();
            long t0 = System.nanoTime();
            jdbc.sql(SQL_MAINTENANCE_MEMORY).params(maintenanceWorkMem).query().singleRow();
            long g = jdbc.sql(SQL_INSERT_GENERATION).params(stream.tenant(), stream.catalog(), manifest.epoch())
                    .query(Long.class).single();
            generations.createDetachedTables(g);
            String tail = "," + g + "," + manifest.epoch() + "," + manifest.cursor() + "\n";
            long rows = 0;
            for (Table table : Table.values()) {
                rows += copy(table, g, manifestKey, manifest, tail.getBytes(StandardCharsets.US_ASCII));
                rowsLoaded.accept(rows);
            }
            t0 = step(steps, "copy", t0);
            for (String sql : SQL_DERIVE) {
                jdbc.sql(sql.formatted(g)).update();
            }
            for (String table : PUBLIC_VIEW_INPUTS) {
                jdbc.sql("ANALYZE " + table + "_g" + g).update();
            }
            t0 = step(steps, "derive", t0);
            jdbc.sql(SQL_PUBLIC_VIEW.formatted(g)).update();
            t0 = step(steps, "publicView", t0);
            for (String table : generations.generationTables()) {
                generations.buildIndexes(g, table);
            }
            t0 = step(steps, "indexes", t0);
            generations.attachTables(g);
            long w = manifest.cursor();
            jdbc.sql(SQL_SET_CURSOR).params(w, w, manifest.chainDigest(), w, w, g).update();
            step(steps, "attach", t0);
            return new Loaded(g, rows, steps);
        });
    }

    private static long step(Map<String, Long> steps, String name, long startedAt) {
        long now = System.nanoTime();
        steps.put(name, (now - startedAt) / 1_000_000);
        return now;
    }

    /** Streams one object into the generation's plain table; each CSV line gets {@code tail} (g, epoch, W). */
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
                sum = ExportObjectReader.read(store, manifestKey, manifest.object(table), fields -> {
                    csvLine(buffer, fields, tail);
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

    /** Appends one CSV line: every field quoted (a quote doubled), then {@code tail} (unquoted numbers, newline). */
    private static void csvLine(ByteArrayOutputStream out, String[] fields, byte[] tail) {
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write('"');
            String f = fields[i];
            byte[] bytes = (f.indexOf('"') < 0 ? f : f.replace("\"", "\"\"")).getBytes(StandardCharsets.UTF_8);
            out.write(bytes, 0, bytes.length);
            out.write('"');
        }
        out.write(tail, 0, tail.length);
    }

    /** The export could not be loaded: it is corrupt or the database refused it. */
    static final class LoadFailedException extends RuntimeException {
        LoadFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
