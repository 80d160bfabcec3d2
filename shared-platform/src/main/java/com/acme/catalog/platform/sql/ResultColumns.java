package com.acme.catalog.platform.sql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * The columns a statement's rows are read by, named once beside its SQL. {@link #in} looks each name up in a result
 * once, so reading a row by name costs what reading it by position does, and a column the statement does not answer
 * fails when the result is opened, even one without rows.
 */
public final class ResultColumns {

    private final String[] names;

    private ResultColumns(String[] names) {
        this.names = names;
    }

    /** @throws IllegalArgumentException when no name or a name twice is given */
    public static ResultColumns of(String... names) {
        if (names.length == 0 || List.of(names).stream().distinct().count() != names.length) {
            throw new IllegalArgumentException("column names must be given, each once: " + Arrays.toString(names));
        }
        return new ResultColumns(names.clone());
    }

    /**
     * The rows of {@code rs} (positioned before its first row), read by these columns' names.
     *
     * @throws SQLException when {@code rs} has no column of one of the names
     */
    public Rows in(ResultSet rs) throws SQLException {
        int[] positions = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            positions[i] = rs.findColumn(names[i]);
        }
        return new Rows(rs, positions);
    }

    /** A result's rows, one at a time ({@link #next}); the getters read the current row, as {@link ResultSet}'s do. */
    public final class Rows {

        private final ResultSet rs;
        private final int[] positions;

        private Rows(ResultSet rs, int[] positions) {
            this.rs = rs;
            this.positions = positions;
        }

        /** Moves to the next row. @return false when there is none */
        public boolean next() throws SQLException {
            return rs.next();
        }

        public String getString(String column) throws SQLException {
            return rs.getString(position(column));
        }

        /** @return 0 for SQL NULL, as {@link ResultSet#getInt} */
        public int getInt(String column) throws SQLException {
            return rs.getInt(position(column));
        }

        /** @return 0 for SQL NULL, as {@link ResultSet#getLong} */
        public long getLong(String column) throws SQLException {
            return rs.getLong(position(column));
        }

        /** @return false for SQL NULL, as {@link ResultSet#getBoolean} */
        public boolean getBoolean(String column) throws SQLException {
            return rs.getBoolean(position(column));
        }

        public <T> T getObject(String column, Class<T> type) throws SQLException {
            return rs.getObject(position(column), type);
        }

        /*
         * A column is named by a literal at each call, the same String object as the one declared (literals are
         * interned), so the first loop finds it by identity in a few comparisons; the second is for computed names.
         */
        private int position(String column) {
            for (int i = 0; i < names.length; i++) {
                if (names[i] == column) {
                    return positions[i];
                }
            }
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(column)) {
                    return positions[i];
                }
            }
            throw new IllegalArgumentException("column " + column + " is not one of " + Arrays.toString(names));
        }
    }
}
