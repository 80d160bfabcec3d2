package com.acme.catalog.platform.db;

import java.sql.SQLException;

/** The SQL state behind a failure, wherever Spring or the driver wrapped it. */
public final class SqlStates {

    private SqlStates() {
    }

    /** @return the SQL state of the first {@link SQLException} with one in the cause chain, or null */
    public static String of(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
        }
        return null;
    }
}
