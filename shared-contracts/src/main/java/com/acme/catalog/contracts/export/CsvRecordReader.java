package com.acme.catalog.contracts.export;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads CSV records as PostgreSQL writes them with {@code COPY … TO STDOUT WITH (FORMAT csv)}: fields separated
 * by {@code ,}, records ended by a newline; a field holding {@code ,}, {@code "}, CR or LF (and an empty string)
 * is enclosed in {@code "} with inner quotes doubled, so a quoted field may span lines. It works on bytes: every
 * delimiter is ASCII and never occurs inside a UTF-8 multi-byte sequence. An unquoted empty field (PostgreSQL's
 * NULL) reads as an empty string; the export's columns are never NULL.
 */
public final class CsvRecordReader {

    private final InputStream in;
    private final byte[] buf;
    private int pos;
    private int limit;
    private byte[] field = new byte[256];
    private int fieldLength;
    private final List<String> fields = new ArrayList<>();

    /** Reads records from {@code in}, which the caller closes. */
    public CsvRecordReader(InputStream in) {
        this.in = in;
        this.buf = new byte[1 << 16];
    }

    private CsvRecordReader(byte[] data) {
        this.in = null;
        this.buf = data;
        this.limit = data.length;
    }

    /**
     * Parses exactly one record, e.g. one row of a COPY stream.
     *
     * @throws CorruptExportException when {@code record} is not exactly one well-formed record
     */
    public static String[] parseRecord(byte[] record) throws CorruptExportException {
        CsvRecordReader r = new CsvRecordReader(record);
        try {
            String[] fields = r.next();
            if (fields == null || r.pos != r.limit) {
                throw new CorruptExportException("not exactly one CSV record: "
                        + new String(record, StandardCharsets.UTF_8));
            }
            return fields;
        } catch (CorruptExportException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("no I/O on an array", e);
        }
    }

    /**
     * @return the next record's fields, or null at the end of the input
     * @throws CorruptExportException on an unterminated quoted field or text after a closing quote
     */
    public String[] next() throws IOException {
        int c = read();
        if (c < 0) {
            return null;
        }
        fields.clear();
        while (true) {
            fieldLength = 0;
            if (c == '"') {
                while (true) {
                    c = read();
                    if (c < 0) {
                        throw new CorruptExportException("CSV ends inside a quoted field");
                    }
                    if (c == '"') {
                        c = read();
                        if (c != '"') {
                            break;
                        }
                    }
                    append(c);
                }
            } else {
                while (c >= 0 && c != ',' && c != '\n' && c != '\r') {
                    append(c);
                    c = read();
                }
            }
            fields.add(new String(field, 0, fieldLength, StandardCharsets.UTF_8));
            if (c == ',') {
                c = read();
                continue;
            }
            if (c == '\r') {
                c = read();
                if (c != '\n') {
                    throw new CorruptExportException("CSV has a CR not followed by LF");
                }
            }
            if (c == '\n' || c < 0) {
                return fields.toArray(new String[0]);
            }
            throw new CorruptExportException("CSV has text after a closing quote");
        }
    }

    private void append(int c) {
        if (fieldLength == field.length) {
            field = Arrays.copyOf(field, field.length * 2);
        }
        field[fieldLength++] = (byte) c;
    }

    private int read() throws IOException {
        if (pos < limit) {
            return buf[pos++] & 0xff;
        }
        if (in == null) {
            return -1;
        }
        int n;
        do {
            n = in.read(buf, 0, buf.length);
        } while (n == 0);
        if (n < 0) {
            return -1;
        }
        pos = 0;
        limit = n;
        return buf[pos++] & 0xff;
    }
}
