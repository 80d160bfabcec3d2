package com.acme.catalog.fault;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The resolver's database server: a primary and a streaming standby ({@code pg_basebackup -R}), each a
 * {@link FaultPostgres} of its own (directory, port). The standby reaches the primary's WAL through a
 * {@link FaultProxy} of its own, so the suite can cut it off. The services reach the pair by a multi-host URL with
 * {@code targetServerType=primary} ({@link #jdbcUrl}); a failover kills the primary, promotes the standby, and later
 * makes the old node a standby of the new primary in its old directory and port, so the URL never changes.
 *
 * <p>Steady state: synchronous ({@code synchronous_standby_names = '*'}, {@code synchronous_commit = on}), so every
 * acknowledged commit is flushed on the standby. While there is no standby (between a promotion and the new standby
 * streaming) and for the asynchronous failover it is asynchronous ({@code ''}).
 */
final class ReplicatedPostgres implements AutoCloseable {

    private final FaultPostgres[] nodes = new FaultPostgres[2];
    private volatile int primary;
    /** the standby's link to the primary's WAL */
    private volatile FaultProxy wal;
    private volatile boolean synchronous;

    private ReplicatedPostgres() {
    }

    static ReplicatedPostgres create() throws Exception {
        ReplicatedPostgres r = new ReplicatedPostgres();
        r.nodes[0] = FaultPostgres.create();
        r.wal = new FaultProxy("standby->primary WAL", List.of(r.nodes[0].port));
        r.nodes[1] = FaultPostgres.standby(r.wal.port());
        r.awaitStreaming(60_000);
        r.setSynchronous(true);
        return r;
    }

    FaultPostgres primary() {
        return nodes[primary];
    }

    FaultPostgres standby() {
        return nodes[1 - primary];
    }

    boolean synchronous() {
        return synchronous;
    }

    /**
     * The URL a resolver uses: both nodes, {@code targetServerType=primary} (pgjdbc connects only to the node that
     * is not read-only), {@code hostRecheckSeconds=2} (a node last seen as standby or down is tried again after 2 s,
     * not 10), {@code connectTimeout=2}.
     */
    String jdbcUrl(String database, String application) {
        return "jdbc:postgresql://127.0.0.1:" + nodes[0].port + ",127.0.0.1:" + nodes[1].port + "/" + database
                + "?targetServerType=primary&hostRecheckSeconds=2&connectTimeout=2&ApplicationName=" + application;
    }

    void createDatabase(String name) throws SQLException {
        primary().createDatabase(name);
    }

    /** A harness connection to the current primary. */
    Connection connect(String database) throws SQLException {
        return primary().connect(database);
    }

    /** {@code synchronous_standby_names} of the primary '*' or '' (reloaded: waiting commits are released). */
    void setSynchronous(boolean on) throws SQLException {
        try (Connection c = primary().connect("postgres"); Statement s = c.createStatement()) {
            s.execute("ALTER SYSTEM SET synchronous_standby_names = '" + (on ? "*" : "") + "'");
            s.execute("ALTER SYSTEM SET synchronous_commit = 'on'");
            s.execute("SELECT pg_reload_conf()");
        }
        synchronous = on;
    }

    /** Waits until the primary has a standby streaming. */
    void awaitStreaming(long ms) throws Exception {
        long deadline = System.nanoTime() + ms * 1_000_000;
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try (Connection c = primary().connect("postgres"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
                rs.next();
                if (rs.getInt(1) > 0) {
                    return;
                }
                last = "no standby streaming";
            } catch (SQLException e) {
                last = e.getMessage();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no standby streaming from 127.0.0.1:" + primary().port + " after " + ms
                + " ms: " + last);
    }

    /** Cuts the standby off the primary's WAL: its replication connection reset, new ones refused. */
    void cutStandby() {
        wal.set(FaultProxy.Mode.REFUSE);
    }

    /**
     * The failover: {@code pg_ctl stop -m immediate} of the primary, {@code pg_ctl promote} of the standby, which is
     * then the primary, asynchronous (no standby yet).
     *
     * @return when the promotion had finished ({@link System#nanoTime})
     */
    long failover() throws Exception {
        FaultPostgres old = primary();
        FaultPostgres next = standby();
        old.stop("immediate");
        next.promote();
        primary = 1 - primary;
        long promoted = System.nanoTime();
        setSynchronous(false);
        return promoted;
    }

    /**
     * The old primary made a standby of the new one (pg_basebackup into its old directory, on its old port, through
     * a new WAL link), streaming; then synchronous again.
     */
    void recreateStandby() throws Exception {
        FaultProxy old = wal;
        wal = new FaultProxy("standby->primary WAL", List.of(primary().port));
        old.close();
        standby().baseBackup(wal.port());
        awaitStreaming(60_000);
        setSynchronous(true);
    }

    /** The standby's open cursor positions of the resolver database (hot standby reads), per catalog. */
    java.util.Map<String, Long> standbyCursors() throws SQLException {
        java.util.Map<String, Long> out = new java.util.HashMap<>();
        try (Connection c = standby().connect("resolver"); PreparedStatement s = c.prepareStatement(
                "SELECT catalog, position FROM resolver.stream_cursor WHERE fenced_at IS NULL");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        nodes[1 - primary].close();
        nodes[primary].close();
        wal.close();
    }
}
