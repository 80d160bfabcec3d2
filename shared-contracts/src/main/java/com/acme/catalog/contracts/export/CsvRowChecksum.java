package com.acme.catalog.contracts.export;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Kind;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

/**
 * The {@value AcceptedStateChecksum#PROFILE} checksum of a table (and the same encoding of the revision history),
 * fed with the raw CSV rows of an export object
 * (PostgreSQL {@code COPY … (FORMAT csv)}, one record per call) and computed on bytes, without building a String per
 * field: the exporter hashes millions of rows on the way to the object store. It produces exactly what
 * {@link AcceptedStateChecksum.Accumulator} produces for the same rows (a test holds the two together): a TEXT field
 * is JSON-quoted byte by byte (only {@code "}, {@code \} and bytes below 0x20 are escaped, so UTF-8 sequences pass
 * unchanged), an INT its digits, a BOOL {@code t}/{@code f} as {@code true}/{@code false}, a JSON field verbatim.
 */
public final class CsvRowChecksum {

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};

    private final String table;
    private final List<Column> columns;
    private final Kind[] kinds;
    private final MessageDigest sha = ChainDigest.sha256();
    private byte[] field = new byte[256];
    private byte[] line = new byte[512];
    private int fieldLength;
    private int lineLength;
    private long rows;

    public CsvRowChecksum(Table table) {
        this(ExportTable.of(table));
    }

    /** The same encoding over any export object's rows (the revision history's too). */
    public CsvRowChecksum(ExportTable table) {
        this.table = table.name();
        this.columns = table.columns();
        this.kinds = columns.stream().map(Column::kind).toArray(Kind[]::new);
    }

    /**
     * Adds one data row: exactly one CSV record, its line end included or not.
     *
     * @throws CorruptExportException when the record is malformed or a field does not fit its column
     */
    public void row(byte[] record) throws CorruptExportException {
        lineLength = 0;
        int pos = 0;
        int n = record.length;
        for (int f = 0; f < kinds.length; f++) {
            fieldLength = 0;
            if (pos < n && record[pos] == '"') {
                pos++;
                while (true) {
                    if (pos >= n) {
                        throw new CorruptExportException(table + " row ends inside a quoted field");
                    }
                    byte b = record[pos++];
                    if (b == '"') {
                        if (pos < n && record[pos] == '"') {
                            pos++;
                        } else {
                            break;
                        }
                    }
                    appendField(b);
                }
            } else {
                while (pos < n && record[pos] != ',' && record[pos] != '\n' && record[pos] != '\r') {
                    appendField(record[pos++]);
                }
            }
            if (f > 0) {
                appendLine((byte) '\t');
            }
            encode(f);
            boolean last = f == kinds.length - 1;
            if (!last) {
                if (pos >= n || record[pos] != ',') {
                    throw new CorruptExportException(table + " rows have " + kinds.length + " fields");
                }
                pos++;
            }
        }
        if (pos < n && record[pos] == '\r') {
            pos++;
        }
        if (pos < n && record[pos] == '\n') {
            pos++;
        }
        if (pos != n) {
            throw new CorruptExportException(table + " row has more than " + kinds.length + " fields or text after "
                    + "a closing quote");
        }
        appendLine((byte) '\n');
        sha.update(line, 0, lineLength);
        rows++;
    }

    public long rows() {
        return rows;
    }

    /** Finishes the table; this instance must not be used afterwards. */
    public TableChecksum finish() {
        return new TableChecksum(rows, HexFormat.of().formatHex(sha.digest()));
    }

    private void encode(int f) throws CorruptExportException {
        switch (kinds[f]) {
            case TEXT -> {
                appendLine((byte) '"');
                for (int i = 0; i < fieldLength; i++) {
                    byte b = field[i];
                    switch (b) {
                        case '"' -> appendEscape('"');
                        case '\\' -> appendEscape('\\');
                        case '\n' -> appendEscape('n');
                        case '\r' -> appendEscape('r');
                        case '\t' -> appendEscape('t');
                        default -> {
                            if (b >= 0 && b < 0x20) {
                                appendEscape('u');
                                appendLine((byte) '0');
                                appendLine((byte) '0');
                                appendLine(HEX[b >> 4]);
                                appendLine(HEX[b & 0xf]);
                            } else {
                                appendLine(b);
                            }
                        }
                    }
                }
                appendLine((byte) '"');
            }
            case INT -> {
                if (!canonicalInteger()) {
                    throw new CorruptExportException(table + "." + columns.get(f).name()
                            + " is not an integer");
                }
                appendFieldBytes();
            }
            case BOOL -> {
                if (fieldLength == 1 && field[0] == 't') {
                    appendLine(TRUE);
                } else if (fieldLength == 1 && field[0] == 'f') {
                    appendLine(FALSE);
                } else {
                    throw new CorruptExportException(table + "." + columns.get(f).name() + " is not t or f");
                }
            }
            default -> appendFieldBytes();
        }
    }

    /** Digits as Long.toString would print them: optional '-', no leading zero unless the value is 0. */
    private boolean canonicalInteger() {
        int i = fieldLength > 0 && field[0] == '-' ? 1 : 0;
        if (i == fieldLength || fieldLength - i > 18) {
            return false;
        }
        if (field[i] == '0' && (fieldLength - i > 1 || i == 1)) {
            return false;
        }
        for (; i < fieldLength; i++) {
            if (field[i] < '0' || field[i] > '9') {
                return false;
            }
        }
        return true;
    }

    private void appendEscape(char c) {
        appendLine((byte) '\\');
        appendLine((byte) c);
    }

    private void appendFieldBytes() {
        ensureLine(fieldLength);
        System.arraycopy(field, 0, line, lineLength, fieldLength);
        lineLength += fieldLength;
    }

    private void appendField(byte b) {
        if (fieldLength == field.length) {
            field = Arrays.copyOf(field, field.length * 2);
        }
        field[fieldLength++] = b;
    }

    private void appendLine(byte[] bytes) {
        ensureLine(bytes.length);
        System.arraycopy(bytes, 0, line, lineLength, bytes.length);
        lineLength += bytes.length;
    }

    private void appendLine(byte b) {
        ensureLine(1);
        line[lineLength++] = b;
    }

    private void ensureLine(int more) {
        if (lineLength + more > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + more));
        }
    }
}
