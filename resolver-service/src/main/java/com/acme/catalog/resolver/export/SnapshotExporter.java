package com.acme.catalog.resolver.export;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.export.CsvRecordReader;
import com.acme.catalog.contracts.export.CsvRowChecksum;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportManifest.ManifestObject;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore.StoredObject;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 3: one {@code REPEATABLE READ READ ONLY} transaction reads the open epoch, cursor W and its chain
 * digest, then streams every table of current accepted state and the revision history with
 * {@code COPY (SELECT …) TO STDOUT} (pgjdbc's CopyManager on the transaction's own connection, so every row comes
 * from the same snapshot as W) through gzip into one object per table. Each row is also fed to the table's profile
 * checksum on the way
 * ({@link CsvRowChecksum}), so the checksum in the manifest is that of exactly the rows exported, computed without
 * a second read. Compression, the object's SHA-256 and the store's write run on a second thread, a bounded number
 * of 64 KiB chunks behind the reading one.
 */
@Component
class SnapshotExporter {

    /* Tenant and catalog are inlined (COPY takes no parameters); StreamId admits only [a-z0-9-]. */
    private static final Map<ExportTable, String> SELECT = Map.of(
            ExportTable.items, """
                    SELECT item_id, revision, deleted, attributes FROM item
                     WHERE tenant = '%s' AND catalog = '%s' ORDER BY item_id COLLATE "C"
                    """,
            ExportTable.mappings, """
                    SELECT mapping_id, revision, source, target FROM mapping
                     WHERE tenant = '%s' AND catalog = '%s' ORDER BY mapping_id COLLATE "C"
                    """,
            ExportTable.policies, """
                    SELECT policy_id, revision, rules FROM policy
                     WHERE tenant = '%s' AND catalog = '%s' ORDER BY policy_id COLLATE "C"
                    """,
            ExportTable.releases, """
                    SELECT release_id, revision, visibility, items FROM release
                     WHERE tenant = '%s' AND catalog = '%s' ORDER BY release_id COLLATE "C"
                    """,
            // the whole history: a release may name any earlier item revision, now or after the load
            ExportTable.revisions, """
                    SELECT aggregate_type, aggregate_id, revision, deleted, content, epoch, position, event_id
                      FROM accepted_revision
                     WHERE tenant = '%s' AND catalog = '%s'
                     ORDER BY aggregate_type COLLATE "C", aggregate_id COLLATE "C", revision
                    """);
    private static final String SQL_ANY_CURSOR = """
            SELECT EXISTS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ?)
            """;

    /** Rows handed to the compressing thread at once, and how many such chunks may wait for it. */
    private static final int CHUNK_BYTES = 1 << 16;
    private static final int QUEUED_CHUNKS = 16;

    private final TransactionTemplate snapshot;
    private final DataSource dataSource;
    private final CursorRepository cursors;
    private final JdbcClient jdbc;
    private final ObjectStore store;
    private final ExportProperties properties;

    SnapshotExporter(PlatformTransactionManager tm, DataSource dataSource, CursorRepository cursors, JdbcClient jdbc,
            ObjectStore store, ExportProperties properties) {
        this.snapshot = Snapshots.readOnly(tm);
        this.dataSource = dataSource;
        this.cursors = cursors;
        this.jdbc = jdbc;
        this.store = store;
        this.properties = properties;
    }

    /** The COPY statement that writes (and, with FROM STDIN, loads) a table object. */
    static String copySql(Table table, StreamId s) {
        return copySql(ExportTable.of(table), s);
    }

    static String copySql(ExportTable table, StreamId s) {
        return "COPY (" + SELECT.get(table).formatted(s.tenant(), s.catalog()).strip() + ") TO STDOUT WITH "
                + ExportFormat.COPY_OPTIONS;
    }

    /**
     * Writes every table object of {@code job} from one snapshot.
     *
     * @throws ApiException {@code EPOCH_CHANGED} when the stream's open epoch is not the job's
     */
    Snapshot write(ExportJob job, Checkpoint checkpoint) {
        return snapshot.execute(status -> {
            Head head = head(job.stream());
            if (head.epoch() != job.epoch()) {
                throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream %s is in epoch %s, the export's lease in %d"
                        .formatted(job.stream(), head.epoch() == 0 ? "none (fenced)" : head.epoch(), job.epoch()));
            }
            checkpoint.snapshotOpened(head);
            Connection con = DataSourceUtils.getConnection(dataSource);
            try {
                CopyManager copy = con.unwrap(PGConnection.class).getCopyAPI();
                Map<Table, TableChecksum> sums = new EnumMap<>(Table.class);
                List<ManifestObject> objects = new ArrayList<>();
                for (ExportTable table : ExportTable.values()) {
                    checkpoint.beforeTable(table);
                    CsvRowChecksum checksum = new CsvRowChecksum(table);
                    String name = ExportFormat.objectName(table);
                    StoredObject stored = store.put(job.objectPrefix() + name, ExportFormat.OBJECT_CONTENT_TYPE,
                            out -> copyTable(copy, table, job.stream(), out, checksum, checkpoint));
                    TableChecksum sum = checksum.finish();
                    table.profileTable().ifPresent(t -> sums.put(t, sum));
                    objects.add(new ManifestObject(name, table, sum.rows(), stored.bytes(), stored.sha256(),
                            ExportFormat.OBJECT_CONTENT_TYPE, ExportFormat.OBJECT_FORMAT,
                            ExportFormat.OBJECT_COMPRESSION, ExportFormat.columns(table)));
                    checkpoint.tableWritten(table, stored, sum.rows());
                }
                return new Snapshot(head.epoch(), head.position(), head.chainDigest(), sums, objects);
            } catch (IOException e) {
                throw new UncheckedIOException("export " + job.exportId() + " could not write its objects", e);
            } catch (SQLException e) {
                throw new IllegalStateException("export " + job.exportId() + ": the connection is not PostgreSQL's", e);
            } finally {
                DataSourceUtils.releaseConnection(con, dataSource);
            }
        });
    }

    /** The first statement of the snapshot: the open epoch, W and the digest at W (epoch 0: fenced, none open). */
    private Head head(StreamId s) {
        Cursor open = cursors.read(s).orElse(null);
        if (open != null) {
            return new Head(open.epoch(), open.position(),
                    open.chainDigest() == null ? ChainDigest.ZERO : open.chainDigest());
        }
        boolean anyCursor = jdbc.sql(SQL_ANY_CURSOR).params(s.tenant(), s.catalog()).query(Boolean.class).single();
        return anyCursor ? new Head(0, 0, ChainDigest.ZERO) : new Head(1, 0, ChainDigest.ZERO);
    }

    private void copyTable(CopyManager copy, ExportTable table, StreamId s, OutputStream out, CsvRowChecksum checksum,
            Checkpoint checkpoint) throws IOException {
        CopyOut co;
        try {
            co = copy.copyOut(copySql(table, s));
        } catch (SQLException e) {
            throw new IOException("COPY of " + table + " failed: " + e.getMessage(), e);
        }
        try (GZIPOutputStream gzip = gzip(new KeepOpen(out), properties.compressionLevel())) {
            byte[] header = co.readFromCopy();
            if (header == null || !Arrays.asList(CsvRecordReader.parseRecord(header))
                    .equals(ExportFormat.columns(table))) {
                throw new IllegalStateException("COPY of " + table + " did not start with the profile's columns");
            }
            gzip.write(header);
            // this thread reads the rows and checksums them; another compresses, hashes and stores them
            try (Compressor compressor = new Compressor(gzip, table)) {
                ByteArrayOutputStream chunk = new ByteArrayOutputStream(CHUNK_BYTES + (1 << 12));
                byte[] row;
                // PostgreSQL sends each row of COPY TO as exactly one CopyData message
                while ((row = co.readFromCopy()) != null) {
                    chunk.write(row, 0, row.length);
                    checksum.row(row);
                    checkpoint.row();
                    if (chunk.size() >= CHUNK_BYTES) {
                        compressor.write(chunk.toByteArray());
                        chunk.reset();
                    }
                }
                compressor.write(chunk.toByteArray());
                compressor.finish();
            }
        } catch (SQLException e) {
            throw new IOException("COPY of " + table + " failed: " + e.getMessage(), e);
        } finally {
            if (co.isActive()) {
                try {
                    co.cancelCopy();
                } catch (SQLException ignored) {
                    // the transaction rolls back anyway
                }
            }
        }
    }

    /**
     * Compresses chunks of rows into the object on its own thread, at most {@code QUEUED_CHUNKS} behind the reader;
     * closing it without {@link #finish} (the reader failed) stops the thread and discards what is queued.
     */
    private static final class Compressor implements AutoCloseable {
        private static final byte[] END = new byte[0];
        private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
        private final Thread thread;
        private volatile IOException failure;

        Compressor(OutputStream gzip, ExportTable table) {
            thread = DaemonThreads.newThread(() -> {
                try {
                    byte[] chunk;
                    while ((chunk = queue.take()) != END) {
                        gzip.write(chunk);
                    }
                } catch (IOException e) {
                    failure = e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "export-gzip-" + table);
            thread.start();
        }

        void write(byte[] chunk) throws IOException {
            try {
                while (!queue.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                    if (failure != null || !thread.isAlive()) {
                        throw new IOException("compressing the export failed", failure);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while exporting", e);
            }
        }

        /** Waits until every chunk is compressed. */
        void finish() throws IOException {
            write(END);
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while exporting", e);
            }
            if (failure != null) {
                throw failure;
            }
        }

        /** Stops the thread (the reader failed) before gzip is closed on this one. */
        @Override
        public void close() {
            if (thread.isAlive()) {
                thread.interrupt();
                try {
                    thread.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static GZIPOutputStream gzip(OutputStream out, int level) throws IOException {
        return new GZIPOutputStream(out, 1 << 16) {
            {
                def.setLevel(level);
            }
        };
    }

    /** Lets gzip finish and free its deflater without closing the object store's stream, which the store owns. */
    private static final class KeepOpen extends FilterOutputStream {
        KeepOpen(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }

    /** The open epoch (0 when the stream is fenced), cursor W and the chain digest at W. */
    record Head(long epoch, long position, String chainDigest) {
    }

    /** What one snapshot exported. */
    record Snapshot(long epoch, long cursor, String chainDigest, Map<Table, TableChecksum> stateChecksum,
            List<ManifestObject> objects) {
    }

    /** The running export's hooks inside the snapshot: progress, and the lease and epoch checks that abort it. */
    interface Checkpoint {
        void snapshotOpened(Head head);

        void beforeTable(ExportTable table);

        void row();

        void tableWritten(ExportTable table, StoredObject stored, long rows);
    }
}
