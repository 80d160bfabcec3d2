package com.acme.catalog.contracts.checksum;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import com.acme.catalog.contracts.ChainDigest;

/**
 * The versioned canonical checksum profile of current accepted state, {@value #PROFILE}. Resolver and product
 * compute it over their own copies, so two rebuilds, or resolver and product, compare exactly.
 *
 * <p>Per table: rows in ascending byte order of the id (SQL {@code ORDER BY id COLLATE "C"}), each row encoded
 * as its fields in the table's exact column order, joined by a tab and ended by a newline. A {@code TEXT} field
 * is a JSON string literal, an {@code INT} its decimal digits, a {@code BOOL} {@code true}/{@code false}, and a
 * {@code JSON} field PostgreSQL's {@code jsonb::text} rendering (which normalizes key order and spacing). The
 * table's digest is the lowercase hex SHA-256 of those bytes. Deleted items stay in the profile with their
 * revision and {@code deleted = true} and empty attributes.
 */
public final class AcceptedStateChecksum {

    public static final String PROFILE = "accepted-state-v1";

    /** Field kinds of the canonical encoding. */
    public enum Kind { TEXT, INT, BOOL, JSON }

    /** A column of the profile. */
    public record Column(String name, Kind kind) {
    }

    /** The profile's tables in their fixed order, each with its exact column list; the first column is the key. */
    public enum Table {
        items(List.of(new Column("item_id", Kind.TEXT), new Column("revision", Kind.INT),
                new Column("deleted", Kind.BOOL), new Column("attributes", Kind.JSON))),
        mappings(List.of(new Column("mapping_id", Kind.TEXT), new Column("revision", Kind.INT),
                new Column("source", Kind.TEXT), new Column("target", Kind.TEXT))),
        policies(List.of(new Column("policy_id", Kind.TEXT), new Column("revision", Kind.INT),
                new Column("rules", Kind.JSON))),
        releases(List.of(new Column("release_id", Kind.TEXT), new Column("revision", Kind.INT),
                new Column("visibility", Kind.TEXT), new Column("items", Kind.JSON)));

        private final List<Column> columns;

        Table(List<Column> columns) {
            this.columns = columns;
        }

        public List<Column> columns() {
            return columns;
        }

        /** The key column, by which rows are ordered ({@code COLLATE "C"}). */
        public String key() {
            return columns.get(0).name();
        }
    }

    private AcceptedStateChecksum() {
    }

    /**
     * Accumulates one table's rows, fed in key order. The encoding is the same for every profile (this one and
     * {@link PublicViewChecksum}): only the tables and their columns differ.
     */
    public static final class Accumulator {
        private final String table;
        private final List<Column> columns;
        private final MessageDigest sha = ChainDigest.sha256();
        private final StringBuilder line = new StringBuilder(256);
        private long rows;

        public Accumulator(Table table) {
            this(table.name(), table.columns());
        }

        /** An accumulator of any table encoded like this profile's: {@code columns} in their exact order. */
        public Accumulator(String table, List<Column> columns) {
            this.table = table;
            this.columns = List.copyOf(columns);
        }

        /** Adds one row; {@code fields} in the table's column order (String, Number, Boolean or JSON text). */
        public void row(Object... fields) {
            List<Column> cols = columns;
            if (fields.length != cols.size()) {
                throw new IllegalArgumentException(table + " rows have " + cols.size() + " fields");
            }
            line.setLength(0);
            for (int i = 0; i < fields.length; i++) {
                if (i > 0) {
                    line.append('\t');
                }
                encode(line, cols.get(i).kind(), fields[i]);
            }
            line.append('\n');
            sha.update(line.toString().getBytes(StandardCharsets.UTF_8));
            rows++;
        }

        public long rows() {
            return rows;
        }

        /** Finishes the table; the accumulator must not be used afterwards. */
        public TableChecksum finish() {
            return new TableChecksum(rows, HexFormat.of().formatHex(sha.digest()));
        }
    }

    /** Row count and SHA-256 of one table under the profile. */
    public record TableChecksum(long rows, String sha256) {
    }

    static void encode(StringBuilder out, Kind kind, Object value) {
        switch (kind) {
            case TEXT -> quote(out, (String) value);
            case INT -> out.append(((Number) value).longValue());
            case BOOL -> out.append(((Boolean) value).booleanValue());
            case JSON -> out.append((String) value);
            default -> throw new IllegalStateException();
        }
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
