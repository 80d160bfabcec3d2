package com.acme.catalog.resolver.stream;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.JdbcTransactionObjectSupport;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * The service's transaction manager with a fault a test arms: the next commit of a request thread (a REST write; not
 * a background job's) loses its outcome, either after the commit happened (the answer lost on the way back: the
 * write is committed) or because its backend was terminated just before (the write is not committed). Either way
 * the commit fails as a lost connection does.
 */
@TestConfiguration(proxyBeanMethods = false)
class CommitCutter {

    /** How the armed commit loses its outcome. */
    enum Fault {
        /** Commits, then fails as a connection lost before the server's answer arrived. */
        COMMITTED_THEN_LOST,
        /** Terminates the transaction's backend ({@code pg_terminate_backend}), then commits: nothing is committed. */
        TERMINATED_BEFORE_COMMIT
    }

    @Bean
    CuttingTransactionManager transactionManager(DataSource dataSource) {
        return new CuttingTransactionManager(dataSource);
    }

    static final class CuttingTransactionManager extends JdbcTransactionManager {

        private final AtomicReference<Fault> armed = new AtomicReference<>();
        /** Request-thread commits to let through before the armed one. */
        private final AtomicInteger skip = new AtomicInteger();
        private final AtomicInteger cut = new AtomicInteger();

        CuttingTransactionManager(DataSource dataSource) {
            super(dataSource);
        }

        /** Arms {@code fault} for the request-thread commit after the next {@code skipping} ones. */
        void arm(Fault fault, int skipping) {
            skip.set(skipping);
            armed.set(fault);
        }

        /** Commits cut so far. */
        int cut() {
            return cut.get();
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            Fault fault = armed.get();
            if (fault == null || !Thread.currentThread().getName().startsWith("http-nio")
                    || skip.getAndDecrement() > 0 || !armed.compareAndSet(fault, null)) {
                super.doCommit(status);
                return;
            }
            cut.incrementAndGet();
            Connection con = ((JdbcTransactionObjectSupport) status.getTransaction()).getConnectionHolder()
                    .getConnection();
            if (fault == Fault.COMMITTED_THEN_LOST) {
                super.doCommit(status);
                throw new TransactionSystemException("Could not commit JDBC transaction",
                        new SQLException("An I/O error occurred while sending to the backend.", "08006"));
            }
            terminate(con);
            super.doCommit(status);
        }

        private void terminate(Connection victim) {
            try (Statement s = victim.createStatement()) {
                var rs = s.executeQuery("SELECT pg_backend_pid()");
                rs.next();
                int pid = rs.getInt(1);
                try (Connection other = obtainDataSource().getConnection(); Statement k = other.createStatement()) {
                    k.execute("SELECT pg_terminate_backend(" + pid + ")");
                    // the backend is gone once it leaves pg_stat_activity: then the commit cannot reach it
                    for (int i = 0; i < 200; i++) {
                        var alive = k.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid);
                        alive.next();
                        if (alive.getLong(1) == 0) {
                            return;
                        }
                        Thread.sleep(25);
                    }
                    throw new IllegalStateException("backend " + pid + " survived pg_terminate_backend");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (SQLException e) {
                throw new IllegalStateException("could not terminate the committing backend", e);
            }
        }
    }
}
