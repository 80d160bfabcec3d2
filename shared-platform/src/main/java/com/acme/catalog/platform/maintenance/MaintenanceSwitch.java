package com.acme.catalog.platform.maintenance;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.function.Supplier;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import com.acme.catalog.contracts.maintenance.MaintenanceStatus;

/**
 * A service's maintenance mode: the one row of its {@code maintenance_mode} table, so every instance sees the same
 * switch and it survives a restart.
 *
 * <p>Why the switch waits for work in flight: every transaction that maintenance must stop first takes the
 * maintenance hold ({@link #SQL_HOLD}, a shared transaction-scoped advisory lock) and only then, in a later
 * statement (so under READ COMMITTED with a snapshot taken after the hold was granted), reads the row. The switch
 * takes the same lock exclusively before it changes the row. So when {@link #set} returns, every transaction that
 * read "off" before it has ended, and every transaction that reads the row afterwards sees the new value: a write
 * that passed the check before the flag flipped has committed (or rolled back) before the switch answers. New
 * holders queue behind a waiting switch, so the switch is never starved.
 */
public final class MaintenanceSwitch {

    /** The maintenance hold: shared, released at the end of the transaction. Follow it with a read of the row. */
    public static final String SQL_HOLD = "SELECT pg_advisory_xact_lock_shared(" + MaintenanceSwitch.LOCK_CLASS
            + ", 0)";
    /** Whether maintenance is on, for a statement after {@link #SQL_HOLD} (a scalar subquery or a statement). */
    public static final String SQL_ENABLED = "SELECT enabled FROM maintenance_mode";

    /** First key of the hold, ASCII "MAIN"; the second is 0. Other advisory locks of the services use other classes. */
    static final int LOCK_CLASS = 0x4D41494E;

    private static final String SQL_HOLD_EXCLUSIVE = "SELECT pg_advisory_xact_lock(" + LOCK_CLASS + ", 0)";
    private static final String SQL_HOLD_THEN_READ = SQL_HOLD + ";\n" + SQL_ENABLED;
    private static final String SQL_STATUS = "SELECT enabled, since FROM maintenance_mode";
    private static final String SQL_SET = """
            UPDATE maintenance_mode
               SET since = CASE WHEN NOT ? THEN NULL WHEN enabled THEN since ELSE clock_timestamp() END,
                   enabled = ?, changed_by = ?, changed_at = clock_timestamp()
            RETURNING enabled, since
            """;

    private final JdbcClient jdbc;
    private final JdbcTemplate template;
    private final TransactionTemplate tx;
    private final Supplier<List<MaintenanceResume>> resume;

    public MaintenanceSwitch(JdbcClient jdbc, JdbcTemplate template, PlatformTransactionManager transactions) {
        this(jdbc, template, transactions, List::of);
    }

    /**
     * @param resume what must run before maintenance is turned off ({@link MaintenanceResume}); supplied late, as
     *               those beans may depend on this switch
     */
    public MaintenanceSwitch(JdbcClient jdbc, JdbcTemplate template, PlatformTransactionManager transactions,
            Supplier<List<MaintenanceResume>> resume) {
        this.jdbc = jdbc;
        this.template = template;
        this.tx = new TransactionTemplate(transactions);
        this.resume = resume;
    }

    /** @return the switch as committed; never null */
    public MaintenanceStatus status() {
        return jdbc.sql(SQL_STATUS).query(MaintenanceSwitch::row).single();
    }

    /**
     * Turns maintenance on or off in a transaction of its own, after every transaction holding the maintenance hold
     * has ended. Turning it on while on keeps {@code since}. Turning it off first runs every
     * {@link MaintenanceResume} (when it is on); one that throws keeps it on.
     *
     * @param by who switched it (a token name), kept in the row
     * @return the switch as committed
     */
    public MaintenanceStatus set(boolean enabled, String by) {
        return set(enabled, by, false);
    }

    /**
     * As {@link #set(boolean, String)}; turning it off also runs every {@link MaintenanceResume#whileResuming} in the
     * switch's transaction, under the exclusive hold, any of which may refuse (keeping it on) unless {@code force}.
     *
     * @param force turn maintenance off even though something that needs it still runs
     */
    public MaintenanceStatus set(boolean enabled, String by, boolean force) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the maintenance switch commits its own transaction");
        }
        List<MaintenanceResume> resuming = !enabled && status().enabled() ? resume.get() : List.of();
        resuming.forEach(MaintenanceResume::beforeResume);
        return tx.execute(status -> {
            jdbc.sql(SQL_HOLD_EXCLUSIVE).query().singleRow();
            resuming.forEach(r -> r.whileResuming(force));
            return jdbc.sql(SQL_SET).params(enabled, enabled, by).query(MaintenanceSwitch::row).single();
        });
    }

    /**
     * Takes the maintenance hold in the caller's transaction and refuses while maintenance is on.
     *
     * @param what what is paused, for the answer ("writes", "the live inbox")
     * @throws ApiException 503 {@code MAINTENANCE} while maintenance is on
     */
    public void requireOff(String what) {
        if (holdAndRead()) {
            throw refused(what);
        }
    }

    /**
     * Takes the maintenance hold in the caller's transaction and reads the switch, in one round trip; the switch
     * cannot change until that transaction ends.
     *
     * @return whether maintenance is on
     */
    public boolean holdAndRead() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the maintenance hold needs an open transaction");
        }
        Boolean enabled = template.execute(SQL_HOLD_THEN_READ, (PreparedStatementCallback<Boolean>) ps -> {
            ps.execute();
            if (!ps.getMoreResults()) {
                throw new IllegalStateException("the read of maintenance_mode after the hold answered nothing");
            }
            try (ResultSet rs = ps.getResultSet()) {
                return rs.next() && rs.getBoolean(1);
            }
        });
        return Boolean.TRUE.equals(enabled);
    }

    /** The refusal every paused entry point answers: 503 {@code MAINTENANCE}. */
    public static ApiException refused(String what) {
        return new ApiException(ProblemCode.MAINTENANCE, "the service is in maintenance (paused: " + what
                + ") until an operator turns it off (POST /v1/admin/maintenance {\"enabled\":false})");
    }

    private static MaintenanceStatus row(ResultSet rs, int n) throws SQLException {
        boolean enabled = rs.getBoolean(1);
        Timestamp since = rs.getTimestamp(2);
        return new MaintenanceStatus(enabled, enabled && since != null ? since.toInstant() : null);
    }
}
