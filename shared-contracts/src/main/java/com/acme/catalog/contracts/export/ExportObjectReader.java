package com.acme.catalog.contracts.export;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.ExportManifest.ManifestObject;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * Reads export objects back and proves they are what the manifest says: while streaming (nothing is held whole)
 * it counts and hashes the stored bytes, gunzips, parses the CSV, checks the header, counts rows and computes the
 * table's profile checksum. Rows reach the handler as they are read, before the object's end proves them intact,
 * so a loader must treat them as tentative until {@code read} returns (load into a shadow copy, drop it on any
 * exception).
 */
public final class ExportObjectReader {

    /** Receives each data row's fields, in the object's column order (see {@link ManifestObject#columns()}). */
    @FunctionalInterface
    public interface RowHandler {
        void row(String[] fields) throws IOException;
    }

    /**
     * Receives each data row as stored: exactly one CSV record (PostgreSQL's own quoting), without its line end, in
     * {@code record[0, length)}; the array is reused for the next row.
     */
    @FunctionalInterface
    public interface RecordHandler {
        void record(byte[] record, int length) throws IOException;
    }

    private ExportObjectReader() {
    }

    /** Reads the manifest at {@code manifestKey}. */
    public static ExportManifest manifest(ObjectStore store, String manifestKey) throws IOException {
        try (InputStream in = store.get(manifestKey)) {
            return ExportManifest.parse(in.readAllBytes());
        }
    }

    /**
     * Reads one table object of the manifest at {@code manifestKey}.
     *
     * @return the table's checksum (the {@code accepted-state-v1} encoding of its rows), computed from the rows read
     * @throws CorruptExportException when size, SHA-256, row count, gzip, CSV or header are not as promised
     */
    public static TableChecksum read(ObjectStore store, String manifestKey, ManifestObject expected,
            RowHandler handler) throws IOException {
        try (InputStream in = store.get(ExportFormat.siblingKey(manifestKey, expected.name()))) {
            return read(in, expected, handler);
        }
    }

    /** Like {@link #read(ObjectStore, String, ManifestObject, RowHandler)}, over the stored bytes. */
    public static TableChecksum read(InputStream stored, ManifestObject expected, RowHandler handler)
            throws IOException {
        ExportTable table = expected.table();
        DigestingInputStream digesting = new DigestingInputStream(stored);
        Accumulator checksum = new Accumulator(table.name(), table.columns());
        long rows = 0;
        try {
            CsvRecordReader csv = new CsvRecordReader(new GZIPInputStream(digesting, 1 << 16));
            String[] header = csv.next();
            List<String> columns = ExportFormat.columns(table);
            if (header == null || !Arrays.asList(header).equals(columns)) {
                throw new CorruptExportException(expected.name() + " does not start with the header " + columns);
            }
            String[] row;
            while ((row = csv.next()) != null) {
                checksum.row(ExportFormat.fields(table, row));
                handler.row(row);
                rows++;
            }
            digesting.drain();
        } catch (ZipException | EOFException e) {
            throw new CorruptExportException(expected.name() + " is not intact gzip: " + e.getMessage(), e);
        }
        verify(expected, digesting, rows);
        return checksum.finish();
    }

    /**
     * Like {@link #read(ObjectStore, String, ManifestObject, RowHandler)}, but hands each row over as its CSV
     * record bytes instead of parsed fields (a loader can pass them on to {@code COPY … (FORMAT csv)} as they are);
     * the profile checksum is computed on the bytes ({@link CsvRowChecksum}), the same verification otherwise.
     */
    public static TableChecksum readRecords(ObjectStore store, String manifestKey, ManifestObject expected,
            RecordHandler handler) throws IOException {
        try (InputStream in = store.get(ExportFormat.siblingKey(manifestKey, expected.name()))) {
            return readRecords(in, expected, handler);
        }
    }

    /** Like {@link #readRecords(ObjectStore, String, ManifestObject, RecordHandler)}, over the stored bytes. */
    public static TableChecksum readRecords(InputStream stored, ManifestObject expected, RecordHandler handler)
            throws IOException {
        ExportTable table = expected.table();
        DigestingInputStream digesting = new DigestingInputStream(stored);
        CsvRowChecksum checksum = new CsvRowChecksum(table);
        long rows = 0;
        try {
            InputStream csv = new GZIPInputStream(digesting, 1 << 16);
            byte[] buf = new byte[1 << 16];
            byte[] record = new byte[1 << 10];
            int length = 0;
            boolean quoted = false;
            boolean header = true;
            int n;
            while ((n = csv.read(buf, 0, buf.length)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n' && !quoted) {
                        if (length > 0 && record[length - 1] == '\r') {
                            length--;
                        }
                        if (header) {
                            checkHeader(expected, Arrays.copyOf(record, length));
                            header = false;
                        } else {
                            checksum.row(Arrays.copyOf(record, length));
                            handler.record(record, length);
                            rows++;
                        }
                        length = 0;
                        continue;
                    }
                    if (b == '"') {
                        quoted = !quoted;
                    }
                    if (length == record.length) {
                        record = Arrays.copyOf(record, record.length * 2);
                    }
                    record[length++] = b;
                }
            }
            if (quoted || length > 0) {
                throw new CorruptExportException(expected.name() + " does not end with a complete CSV record");
            }
            if (header) {
                checkHeader(expected, new byte[0]);
            }
            digesting.drain();
        } catch (ZipException | EOFException e) {
            throw new CorruptExportException(expected.name() + " is not intact gzip: " + e.getMessage(), e);
        }
        verify(expected, digesting, rows);
        return checksum.finish();
    }

    private static void checkHeader(ManifestObject expected, byte[] record) throws CorruptExportException {
        List<String> columns = ExportFormat.columns(expected.table());
        if (record.length == 0 || !Arrays.asList(CsvRecordReader.parseRecord(record)).equals(columns)) {
            throw new CorruptExportException(expected.name() + " does not start with the header " + columns);
        }
    }

    private static void verify(ManifestObject expected, DigestingInputStream digesting, long rows)
            throws CorruptExportException {
        if (digesting.count() != expected.bytes()) {
            throw new CorruptExportException("%s has %d bytes, the manifest says %d"
                    .formatted(expected.name(), digesting.count(), expected.bytes()));
        }
        String sha = digesting.sha256();
        if (!sha.equals(expected.sha256())) {
            throw new CorruptExportException("%s has SHA-256 %s, the manifest says %s"
                    .formatted(expected.name(), sha, expected.sha256()));
        }
        if (rows != expected.rows()) {
            throw new CorruptExportException("%s has %d rows, the manifest says %d"
                    .formatted(expected.name(), rows, expected.rows()));
        }
    }

    /**
     * Reads every object of the manifest (rows go nowhere) and checks each against the manifest, and each table of
     * the {@code accepted-state-v1} profile against the manifest's state checksum.
     *
     * @return each profile table's checksum as computed from the objects
     * @throws CorruptExportException on the first object or table that differs
     */
    public static Map<Table, TableChecksum> verify(ObjectStore store, String manifestKey, ExportManifest manifest)
            throws IOException {
        Map<Table, TableChecksum> out = new EnumMap<>(Table.class);
        for (ExportTable object : ExportTable.values()) {
            TableChecksum sum = read(store, manifestKey, manifest.object(object), fields -> { });
            if (object.profileTable().isEmpty()) {
                continue;
            }
            Table table = object.profileTable().get();
            TableChecksum promised = manifest.stateChecksum().get(table);
            if (!sum.equals(promised)) {
                throw new CorruptExportException("table %s checksums to %s, the manifest says %s"
                        .formatted(table, sum, promised));
            }
            out.put(table, sum);
        }
        return out;
    }

    /** Counts and hashes the bytes read through it. */
    private static final class DigestingInputStream extends FilterInputStream {
        private final MessageDigest sha = ChainDigest.sha256();
        private long count;

        DigestingInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                sha.update((byte) b);
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                sha.update(b, off, n);
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] scratch = new byte[(int) Math.min(n, 8192)];
            int read = read(scratch, 0, scratch.length);
            return Math.max(read, 0);
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        /** Reads whatever gzip left unread (trailing bytes), so size and hash cover the whole object. */
        void drain() throws IOException {
            byte[] scratch = new byte[8192];
            while (read(scratch, 0, scratch.length) >= 0) {
                // counted and hashed by read
            }
        }

        long count() {
            return count;
        }

        String sha256() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
