package com.acme.catalog.product.rebuild;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

import javax.sql.DataSource;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Component;

/**
 * Stages one export object into a loading generation's plain table: streams it through the verifying reader (size,
 * SHA-256, row count, header, profile checksum) into {@code COPY … FROM STDIN (FREEZE)} on the caller's transaction's
 * connection, each CSV record as the export stored it with a tail of the generation's own columns appended.
 */
@Component
class ExportCopy {

    /** The columns COPY fills besides a current-state object's own: generation, epoch, position W (line tail). */
    private static final String COPY_TAIL_COLUMNS = ", generation_id, epoch, position";
    /** The history object's rows carry their own epoch and position: only the generation is appended. */
    private static final String COPY_HISTORY_TAIL_COLUMNS = ", generation_id";
    /** The projection table each export table is loaded into. */
    private static final Map<ExportTable, String> PARTITION_OF = Map.of(ExportTable.items, "item",
            ExportTable.mappings, "mapping", ExportTable.policies, "policy", ExportTable.releases, "release",
            ExportTable.revisions, "aggregate_revision");

    private final DataSource dataSource;
    private final ObjectStore store;

    ExportCopy(DataSource dataSource, ObjectStore store) {
        this.dataSource = dataSource;
        this.store = store;
    }

    /** @return the projection table {@code table} is loaded into */
    static String partitionOf(ExportTable table) {
        return PARTITION_OF.get(table);
    }

    /** @return each current-state CSV line's tail: generation {@code g}, the export's epoch and position W */
    static byte[] stateTail(long g, ExportManifest manifest) {
        return ("," + g + "," + manifest.epoch() + "," + manifest.cursor() + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** @return each history line's tail: generation {@code g} */
    static byte[] historyTail(long g) {
        return ("," + g + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Streams one object into generation {@code g}'s plain table; each CSV record gets {@code tail}, and
     * {@code seen} sees it as stored, {@code progress} is told each chunk's rows as it goes to the database. A
     * current-state table's checksum must equal the manifest's {@code stateChecksum}.
     *
     * @return the object's row count
     * @throws ShadowLoader.LoadFailedException when the database refuses the rows or the object cannot be read, or
     *                                          is not what the manifest promises (a {@link CorruptExportException}
     *                                          its cause)
     */
    long copy(ExportTable table, long g, String manifestKey, ExportManifest manifest, byte[] tail,
            ExportObjectReader.RecordHandler seen, CopyProgress progress) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        String columns = String.join(", ", manifest.object(table).columns())
                + (table == ExportTable.revisions ? COPY_HISTORY_TAIL_COLUMNS : COPY_TAIL_COLUMNS);
        String target = PARTITION_OF.get(table) + "_g" + g;
        try {
            CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY " + target + " (" + columns + ") FROM STDIN WITH (FORMAT csv, FREEZE)");
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 17);
            TableChecksum sum;
            long[] pending = new long[1];
            try {
                // each record as the export stored it (PostgreSQL's own CSV), the tail's columns appended
                sum = ExportObjectReader.readRecords(store, manifestKey, manifest.object(table), (record, length) -> {
                    seen.record(record, length);
                    buffer.write(record, 0, length);
                    buffer.write(tail, 0, tail.length);
                    pending[0]++;
                    if (buffer.size() >= 1 << 16) {
                        flush(in, buffer);
                        progress.rowsCopied(pending[0]);
                        pending[0] = 0;
                    }
                });
                flush(in, buffer);
                progress.rowsCopied(pending[0]);
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
            throw new ShadowLoader.LoadFailedException("loading " + table + " of export " + manifest.exportId() + ": "
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
}
