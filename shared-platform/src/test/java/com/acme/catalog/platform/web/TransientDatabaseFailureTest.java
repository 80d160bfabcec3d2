package com.acme.catalog.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

class TransientDatabaseFailureTest {

    @Test
    void connectionLossRefusalAndShutdownAreTransientAnywhereInTheCauseChain() {
        for (String state : new String[] {"08006", "08001", "08003", "57P01", "57P02", "57P03"}) {
            SQLException sql = new SQLException("x", state);
            assertThat(TransientDatabaseFailure.isTransient(sql)).as(state).isTrue();
            assertThat(TransientDatabaseFailure.isTransient(new UncategorizedSQLException("task", "sql", sql)))
                    .as("wrapped %s", state).isTrue();
        }
        assertThat(TransientDatabaseFailure.isTransient(new CannotCreateTransactionException("could not open",
                new SQLTransientConnectionException("pool timed out")))).isTrue();
        TransactionSystemException commit = new TransactionSystemException("could not commit");
        commit.initCause(new SQLException("I/O error", "08006"));
        assertThat(TransientDatabaseFailure.isTransient(commit)).isTrue();
        TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
                new SQLException("Connection is closed"));
        rollback.initApplicationException(new UncategorizedSQLException("task", "sql",
                new SQLException("terminating connection due to administrator command", "57P01")));
        assertThat(TransientDatabaseFailure.isTransient(rollback)).as("a failed rollback after a cut").isTrue();
        assertThat(TransientDatabaseFailure.isTransient(new TransactionSystemException("JDBC rollback failed",
                new SQLException("Connection is closed")))).as("a commit cut, its rollback on a closed connection")
                .isTrue();
        assertThat(TransientDatabaseFailure.isTransient(new TransactionSystemException("JDBC commit failed",
                new SQLException("deferred check", "23514")))).as("the server refused the commit").isFalse();
        assertThat(TransientDatabaseFailure.isTransient(new CannotGetJdbcConnectionException("no connection")))
                .isTrue();
        assertThat(TransientDatabaseFailure.isTransient(new QueryTimeoutException("timeout"))).isTrue();
    }

    @Test
    void bugsAndDataErrorsAreNot() {
        assertThat(TransientDatabaseFailure.isTransient(new IllegalStateException("bug"))).isFalse();
        assertThat(TransientDatabaseFailure.isTransient(new DataIntegrityViolationException("dup",
                new SQLException("duplicate key", "23505")))).isFalse();
        assertThat(TransientDatabaseFailure.isTransient(new SQLException("check", "23514"))).isFalse();
        assertThat(TransientDatabaseFailure.isTransient(new SQLException("no state"))).isFalse();
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(TransientDatabaseFailure.isTransient(a)).as("a cause cycle ends").isFalse();
    }
}
