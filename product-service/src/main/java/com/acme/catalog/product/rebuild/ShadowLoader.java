package com.acme.catalog.product.rebuild;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
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
import com.acme.catalog.product.projection.ProjectionWriter;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Loads an export into a new BUILDING generation, all in one transaction (the partitions are created in it too, so
 * any failure leaves nothing behind): every object is streamed through the verifying reader (size, SHA-256, row
 * count, header, profile checksum) and {@code COPY … FROM STDIN} into a temporary table, each table's checksum is
 * compared with the manifest's {@code stateChecksum}, then the rows go into the generation's partitions with the
 * export's epoch and position W, together with the derived rows (each aggregate's current revision, the items
 * each release names) and the public view. The generation's cursor is set to W with the manifest's chain digest.
 */
@Component
class ShadowLoader {

    private static final String SQL_INSERT_GENERATION = """
            INSERT INTO generation (tenant, catalog, epoch, status) VALUES (?, ?, ?, 'BUILDING') RETURNING generation_id
            """;
    private static final String SQL_CREATE_PARTITIONS = "SELECT create_generation_partitions(?)";
    private static final Map<Table, String> SQL_STAGE = Map.of(
            Table.items, "CREATE TEMP TABLE load_items (item_id text, revision integer, deleted boolean, "
                    + "attributes jsonb) ON COMMIT DROP",
            Table.mappings, "CREATE TEMP TABLE load_mappings (mapping_id text, revision integer, source text, "
                    + "target text) ON COMMIT DROP",
            Table.policies, "CREATE TEMP TABLE load_policies (policy_id text, revision integer, rules jsonb) "
                    + "ON COMMIT DROP",
            Table.releases, "CREATE TEMP TABLE load_releases (release_id text, revision integer, visibility text, "
                    + "items jsonb) ON COMMIT DROP");
    /** Per statement: generation (?), epoch (?), position W (?). */
    private static final String[] SQL_MOVE = {
        """
        INSERT INTO item (generation_id, item_id, revision, attributes, deleted, epoch, position)
        SELECT ?, item_id, revision, attributes, deleted, ?, ? FROM load_items
        """,
        """
        INSERT INTO mapping (generation_id, mapping_id, revision, source, target, epoch, position)
        SELECT ?, mapping_id, revision, source, target, ?, ? FROM load_mappings
        """,
        """
        INSERT INTO policy (generation_id, policy_id, revision, rules, epoch, position)
        SELECT ?, policy_id, revision, rules, ?, ? FROM load_policies
        """,
        """
        INSERT INTO release (generation_id, release_id, revision, visibility, items, epoch, position)
        SELECT ?, release_id, revision, visibility, items, ?, ? FROM load_releases
        """,
        """
        INSERT INTO aggregate_revision (generation_id, aggregate_type, aggregate_id, revision, content, deleted,
                                        epoch, position, event_id)
        SELECT ?, 'item', item_id, revision,
               CASE WHEN deleted THEN '{}'::jsonb ELSE jsonb_build_object('attributes', attributes) END, deleted,
               ?, ?, '00000000-0000-0000-0000-000000000000'::uuid FROM load_items
        UNION ALL
        SELECT ?, 'mapping', mapping_id, revision, jsonb_build_object('source', source, 'target', target), false,
               ?, ?, '00000000-0000-0000-0000-000000000000'::uuid FROM load_mappings
        UNION ALL
        SELECT ?, 'policy', policy_id, revision, jsonb_build_object('rules', rules), false,
               ?, ?, '00000000-0000-0000-0000-000000000000'::uuid FROM load_policies
        UNION ALL
        SELECT ?, 'release', release_id, revision, jsonb_build_object('visibility', visibility, 'items', items),
               false, ?, ?, '00000000-0000-0000-0000-000000000000'::uuid FROM load_releases
        """};
    /** The items each release names, at the highest revision it lists; generation (?). */
    private static final String SQL_RELEASE_ITEMS = """
            INSERT INTO release_item (generation_id, release_id, item_id, revision)
            SELECT ?, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
              FROM load_releases r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
             GROUP BY r.release_id, ref ->> 'itemId'
            """;
    private static final String SQL_SET_CURSOR = """
            UPDATE generation
               SET start_position = ?, chain_position = ?, chain_digest = ?, applied_position = ?,
                   highest_seen_position = ?, updated_at = now()
             WHERE generation_id = ?
            """;

    /** What a load produced. */
    record Loaded(long generationId, long rows) {
    }

    private final TransactionTemplate tx;
    private final DataSource dataSource;
    private final JdbcClient jdbc;
    private final ObjectStore store;
    private final ProjectionWriter projection;

    ShadowLoader(PlatformTransactionManager tm, DataSource dataSource, JdbcClient jdbc, ObjectStore store,
            ProjectionWriter projection) {
        this.tx = new TransactionTemplate(tm);
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.store = store;
        this.projection = projection;
    }

    /**
     * @param rowsLoaded told the running row count after each table
     * @throws CorruptExportException when an object or the state checksum is not what the manifest promises
     */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded) {
        return tx.execute(status -> {
            long g = jdbc.sql(SQL_INSERT_GENERATION).params(stream.tenant(), stream.catalog(), manifest.epoch())
                    .query(Long.class).single();
            jdbc.sql(SQL_CREATE_PARTITIONS).params(g).query().singleRow();
            long rows = 0;
            for (Table table : Table.values()) {
                jdbc.sql(SQL_STAGE.get(table)).update();
                rows += copy(table, manifestKey, manifest);
                rowsLoaded.accept(rows);
            }
            long w = manifest.cursor();
            for (String sql : SQL_MOVE) {
                int marks = (int) sql.chars().filter(c -> c == '?').count();
                Object[] params = new Object[marks];
                for (int i = 0; i < marks; i += 3) {
                    params[i] = g;
                    params[i + 1] = manifest.epoch();
                    params[i + 2] = w;
                }
                jdbc.sql(sql).params(params).update();
            }
            jdbc.sql(SQL_RELEASE_ITEMS).params(g).update();
            jdbc.sql(SQL_SET_CURSOR).params(w, w, manifest.chainDigest(), w, w, g).update();
            projection.rebuildPublicView(g);
            return new Loaded(g, rows);
        });
    }

    private long copy(Table table, String manifestKey, ExportManifest manifest) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        String columns = String.join(", ", manifest.object(table).columns());
        try {
            CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY load_" + table.name() + " (" + columns + ") FROM STDIN WITH (FORMAT csv)");
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 17);
            TableChecksum sum;
            try {
                sum = ExportObjectReader.read(store, manifestKey, manifest.object(table), fields -> {
                    csvLine(buffer, fields);
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

    private static void csvLine(ByteArrayOutputStream out, String[] fields) {
        StringBuilder line = new StringBuilder(128);
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                line.append(',');
            }
            line.append('"').append(fields[i].replace("\"", "\"\"")).append('"');
        }
        line.append('\n');
        out.writeBytes(line.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The export could not be loaded: it is corrupt or the database refused it. */
    static final class LoadFailedException extends RuntimeException {
        LoadFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
