package com.acme.catalog.contracts.export;

import java.util.List;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;

/**
 * The layout of a resolver export (docs/exports.md). One object per {@link ExportTable} (the tables of the
 * {@value AcceptedStateChecksum#PROFILE} profile and the revision history), named {@code <table>.csv.gz}, next to
 * {@code manifest.json}: gzip-compressed UTF-8 CSV exactly as PostgreSQL's
 * {@code COPY … TO STDOUT WITH (FORMAT csv, HEADER true)} writes it: a header row with the table's column names,
 * then one row per aggregate (per revision in the history) in ascending {@code COLLATE "C"} order of its id. Booleans are {@code t}/{@code f}, JSON columns PostgreSQL's {@code jsonb} text. The product
 * loads an object with {@code COPY <table> (<columns>) FROM STDIN WITH (FORMAT csv, HEADER true)} after gunzip.
 */
public final class ExportFormat {

    /** {@code format} of the manifest. */
    public static final String MANIFEST_FORMAT = "resolver-export";
    /**
     * {@code formatVersion} of the manifest this code writes and reads. The contract fixes it at 1 and lets
     * members be added: the {@code revisions} object (the revision history) is one more object of version 1, and a
     * manifest without it (made before the history was exported) is refused by this reader (docs/exports.md).
     */
    public static final int FORMAT_VERSION = 1;
    public static final String MANIFEST_NAME = "manifest.json";
    public static final String MANIFEST_CONTENT_TYPE = "application/json";
    /** {@code contentType} of every table object: the stored bytes are gzip. */
    public static final String OBJECT_CONTENT_TYPE = "application/gzip";
    public static final String OBJECT_FORMAT = "csv";
    public static final String OBJECT_COMPRESSION = "gzip";
    /** The options of the {@code COPY} that writes (and can load) a table object. */
    public static final String COPY_OPTIONS = "(FORMAT csv, HEADER true)";

    private ExportFormat() {
    }

    /** The object name of a table, relative to the manifest's folder. */
    public static String objectName(Table table) {
        return objectName(ExportTable.of(table));
    }

    public static String objectName(ExportTable table) {
        return table.name() + ".csv.gz";
    }

    /** The object's columns, in order: exactly the profile's column list for the table. */
    public static List<String> columns(Table table) {
        return columns(ExportTable.of(table));
    }

    public static List<String> columns(ExportTable table) {
        return table.columns().stream().map(Column::name).toList();
    }

    /** The key of an object named {@code name} in the same folder as the manifest at {@code manifestKey}. */
    public static String siblingKey(String manifestKey, String name) {
        int slash = manifestKey.lastIndexOf('/');
        return slash < 0 ? name : manifestKey.substring(0, slash + 1) + name;
    }

    /**
     * Turns one CSV row of a table object into the profile's field values, for
     * {@link AcceptedStateChecksum.Accumulator#row}.
     *
     * @throws CorruptExportException when a field does not fit its column
     */
    public static Object[] profileFields(Table table, String[] csv) throws CorruptExportException {
        return fields(ExportTable.of(table), csv);
    }

    /**
     * Turns one CSV row of any export object into its field values (String, Long or Boolean by column kind).
     *
     * @throws CorruptExportException when a field does not fit its column
     */
    public static Object[] fields(ExportTable table, String[] csv) throws CorruptExportException {
        List<Column> columns = table.columns();
        if (csv.length != columns.size()) {
            throw new CorruptExportException(table + " rows have " + columns.size() + " fields, got " + csv.length);
        }
        Object[] out = new Object[csv.length];
        for (int i = 0; i < csv.length; i++) {
            String v = csv[i];
            switch (columns.get(i).kind()) {
                case INT -> out[i] = parseLong(table, columns.get(i), v);
                case BOOL -> out[i] = parseBool(table, columns.get(i), v);
                default -> out[i] = v;
            }
        }
        return out;
    }

    private static Long parseLong(ExportTable table, Column column, String v) throws CorruptExportException {
        try {
            return Long.valueOf(v);
        } catch (NumberFormatException e) {
            throw new CorruptExportException(table + "." + column.name() + " is not an integer: " + v);
        }
    }

    private static Boolean parseBool(ExportTable table, Column column, String v) throws CorruptExportException {
        if (v.equals("t")) {
            return Boolean.TRUE;
        }
        if (v.equals("f")) {
            return Boolean.FALSE;
        }
        throw new CorruptExportException(table + "." + column.name() + " is not t or f: " + v);
    }
}
