package com.acme.catalog.platform.db;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits, bounded, for a database that is not accepting connections yet: unreachable (SQLState class {@code 08}),
 * shutting down ({@code 57P01}, {@code 57P02}) or starting up / not accepting now ({@code 57P03}). Any other
 * answer, including a refusal such as a wrong password ({@code 28P01}) or a missing database ({@code 3D000}), means
 * the server is up: the wait ends and the caller meets that answer itself. Each failed attempt logs one line.
 */
public final class DatabaseStartWait {

    private static final Logger log = LoggerFactory.getLogger(DatabaseStartWait.class);
    private static final Set<String> NOT_NOW = Set.of("57P01", "57P02", "57P03");

    /** One connection attempt: returns when the server accepted (or refused for a reason waiting cannot fix). */
    @FunctionalInterface
    public interface Attempt {
        void connect() throws SQLException;
    }

    /** Elapsed time and pauses, a seam for tests. */
    interface Ticker {
        long nanos();

        void sleep(Duration d) throws InterruptedException;
    }

    private static final Ticker SYSTEM = new Ticker() {
        @Override
        public long nanos() {
            return System.nanoTime();
        }

        @Override
        public void sleep(Duration d) throws InterruptedException {
            Thread.sleep(d.toMillis());
        }
    };

    private final DatabaseStartProperties properties;
    private final Ticker ticker;

    public DatabaseStartWait(DatabaseStartProperties properties) {
        this(properties, SYSTEM);
    }

    DatabaseStartWait(DatabaseStartProperties properties, Ticker ticker) {
        this.properties = properties;
        this.ticker = ticker;
    }

    /** @return whether a failure with this SQL state is one that waiting can fix */
    static boolean retryable(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || NOT_NOW.contains(sqlState));
    }

    /**
     * Attempts until the database answers, or until {@code database.start.timeout} has passed.
     *
     * @param what names the database in log lines and the failure (a URL, never a password)
     * @return how many attempts it took
     * @throws IllegalStateException when the database still does not accept connections after the timeout (or the
     *                               wait is interrupted); the message names it, the last failure is the cause
     */
    public int await(String what, Attempt attempt) {
        long start = ticker.nanos();
        long timeout = properties.timeout().toNanos();
        for (int n = 1; ; n++) {
            SQLException failure;
            try {
                attempt.connect();
                if (n > 1) {
                    log.info("database {} accepts connections after {} attempts", what, n);
                }
                return n;
            } catch (SQLException e) {
                if (!retryable(e.getSQLState())) {
                    return n; // the server answered: not ours to wait for
                }
                failure = e;
            }
            long elapsed = ticker.nanos() - start;
            if (elapsed + properties.retryInterval().toNanos() > timeout) {
                throw new IllegalStateException("database " + what + " did not accept connections within "
                        + properties.timeout() + " (" + n + " attempt(s); last: SQLState " + failure.getSQLState()
                        + ", " + failure.getMessage() + "). Start it, or raise database.start.timeout.", failure);
            }
            log.warn("database {} not accepting connections (attempt {}, SQLState {}: {}); retrying in {}, giving "
                    + "up in {}", what, n, failure.getSQLState(), failure.getMessage(), properties.retryInterval(),
                    Duration.ofNanos(timeout - elapsed));
            try {
                ticker.sleep(properties.retryInterval());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for database " + what, e);
            }
        }
    }
}
