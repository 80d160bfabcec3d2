package com.acme.catalog.platform.web;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Tells a transient database failure (the database out of reach for a while) from a bug: such a failure answers
 * 503 {@code DATABASE_UNAVAILABLE} rather than 500 {@code INTERNAL}, so a client knows to retry.
 *
 * <p>Transient, anywhere in the cause chain: Spring's {@link TransientDataAccessException} and
 * {@link DataAccessResourceFailureException} (which includes {@code CannotGetJdbcConnectionException}); a JDBC
 * connection exception ({@link SQLTransientConnectionException}, as the pool throws when it cannot hand out a
 * connection, {@link SQLNonTransientConnectionException}); an {@link SQLException} of SQLState class {@code 08}
 * (connection exception: refused, lost, closed) or an administrator's shutdown ({@code 57P01} admin shutdown, which
 * {@code pg_terminate_backend} also sends, {@code 57P02} crash shutdown, {@code 57P03} cannot connect now). The
 * wrappers Spring puts around a failed begin or commit ({@code CannotCreateTransactionException},
 * {@code TransactionSystemException}) are seen through to that cause.
 */
public final class TransientDatabaseFailure {

    /** Admin shutdown (pg_terminate_backend, smart/fast shutdown), crash shutdown, cannot connect now. */
    private static final Set<String> SHUTDOWN_STATES = Set.of("57P01", "57P02", "57P03");
    private static final int MAX_DEPTH = 32;

    private TransientDatabaseFailure() {
    }

    public static boolean isTransient(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH && seen.put(t, Boolean.TRUE) == null;
                t = t.getCause(), depth++) {
            if (t instanceof TransientDataAccessException || t instanceof DataAccessResourceFailureException
                    || t instanceof SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && isTransientState(sql.getSQLState())) {
                return true;
            }
            if (t instanceof TransactionSystemException tse && (completionLostTheConnection(tse)
                    || tse.getApplicationException() != null && tse.getApplicationException() != failure
                    && isTransient(tse.getApplicationException()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A commit or rollback that failed with a JDBC exception carrying no SQLState: the server did not answer it (a
     * server's refusal always carries a state), the pool or driver found the connection gone. This is how a commit
     * cut by {@code pg_terminate_backend} ends: Spring's rollback after the failed commit finds the connection closed
     * ("Commit exception overridden by rollback exception") and the commit's own 57P01 is only logged.
     */
    private static boolean completionLostTheConnection(TransactionSystemException tse) {
        return tse.getCause() instanceof SQLException sql && sql.getSQLState() == null;
    }

    static boolean isTransientState(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || SHUTDOWN_STATES.contains(sqlState));
    }
}
