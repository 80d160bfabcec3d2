package com.acme.catalog.fault;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the fault suite's own ({@code initdb} into a directory under /tmp, its own port, trust
 * auth, fsync on), so that the suite can restart and crash it without touching the machine's shared server that
 * other tests use. Run as root, every server command runs as user {@code postgres} through {@code runuser}.
 */
final class FaultPostgres implements AutoCloseable {

    /** -Dfault.pg.bin, else /usr/lib/postgresql/15/bin, else the newest /usr/lib/postgresql/N/bin there is */
    static final Path BIN = findBin();
    static final String HARNESS = "fault-harness";

    final int port;
    private final Path dir;
    private final Path data;
    private volatile boolean closed;

    private FaultPostgres(int port, Path dir) {
        this.port = port;
        this.dir = dir;
        this.data = dir.resolve("data");
    }

    /** Why the cluster cannot be created here, or null when it can. */
    static String unavailableReason() {
        for (String b : List.of("initdb", "pg_ctl", "postgres", "pg_basebackup")) {
            if (!Files.isExecutable(BIN.resolve(b))) {
                return BIN.resolve(b) + " is missing (set -Dfault.pg.bin= to PostgreSQL's bin directory)";
            }
        }
        if (isRoot() && !Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
            return "running as root but runuser is missing (initdb refuses to run as root)";
        }
        return null;
    }

    private static Path findBin() {
        String explicit = System.getProperty("fault.pg.bin");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit);
        }
        Path preferred = Path.of("/usr/lib/postgresql/15/bin");
        if (Files.isExecutable(preferred.resolve("initdb"))) {
            return preferred;
        }
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(java.util.Comparator.comparingInt(b -> {
                        try {
                            return Integer.parseInt(b.getParent().getFileName().toString());
                        } catch (NumberFormatException e) {
                            return 0;
                        }
                    })).orElse(preferred);
        } catch (IOException e) {
            return preferred;
        }
    }

    static FaultPostgres create() throws Exception {
        return create(Integer.getInteger("fault.pg.port", 55432));
    }

    /** A new cluster on {@code port} (another free one when that is taken), started. */
    static FaultPostgres create(int port) throws Exception {
        if (!portFree(port)) {
            int other = freePort();
            System.out.println("[fault] port " + port + " is taken, the suite's cluster uses " + other);
            port = other;
        }
        Path dir = Files.createTempDirectory("fault-pg-");
        FaultPostgres pg = new FaultPostgres(port, dir);
        if (isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()), 30);
        }
        pg.pg(List.of(BIN.resolve("initdb").toString(), "-D", pg.data.toString(), "-A", "trust", "-U", "postgres",
                "-E", "UTF8", "--no-instructions"), 120);
        String conf = "\n# fault suite\nport = " + port + "\nlisten_addresses = '127.0.0.1'\n"
                + "unix_socket_directories = '" + dir + "'\nfsync = on\nmax_connections = 300\n"
                + "shared_buffers = 64MB\nlog_min_messages = warning\n"
                // streaming replication (ReplicatedPostgres): a standby retries its primary every 0.5 s, not 5 s
                + "wal_level = replica\nmax_wal_senders = 10\nwal_keep_size = 256MB\nhot_standby = on\n"
                + "wal_retrieve_retry_interval = 500ms\n";
        Files.writeString(pg.data.resolve("postgresql.conf"), conf, StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.APPEND);
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "stop-fault-postgres"));
        pg.start();
        return pg;
    }

    /**
     * A streaming standby of the cluster listening on {@code walPort} (the primary, or a proxy in front of it):
     * {@code pg_basebackup -R} into a new directory, its own port, started.
     */
    static FaultPostgres standby(int walPort) throws Exception {
        FaultPostgres pg = new FaultPostgres(freePort(), Files.createTempDirectory("fault-pg-standby-"));
        if (isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", pg.dir.toString()), 30);
        }
        pg.baseBackup(walPort);
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "stop-fault-postgres-standby"));
        return pg;
    }

    /**
     * This node made a standby again (its old data removed): {@code pg_basebackup -R -X stream -c fast} from the
     * server at {@code walPort}, its port and socket directory set after the copied configuration, started.
     */
    void baseBackup(int walPort) throws Exception {
        run(List.of("rm", "-rf", data.toString()), 60);
        pg(List.of(BIN.resolve("pg_basebackup").toString(), "-D", data.toString(), "-R", "-X", "stream", "-c",
                "fast", "-d", "host=127.0.0.1 port=" + walPort + " user=postgres application_name=fault-standby"),
                180);
        // the copied postgresql.conf names the source's port and socket directory: the last setting wins
        String conf = "\n# fault suite standby\nport = " + port + "\nunix_socket_directories = '" + dir + "'\n";
        Files.writeString(data.resolve("postgresql.conf"), conf, StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.APPEND);
        start();
    }

    /** {@code pg_ctl stop -m mode}. */
    void stop(String mode) throws Exception {
        pg(List.of(BIN.resolve("pg_ctl").toString(), "stop", "-w", "-t", "60", "-m", mode, "-D", data.toString()),
                90);
    }

    /** {@code pg_ctl promote -w}: the standby ends recovery and becomes a primary. */
    void promote() throws Exception {
        pg(List.of(BIN.resolve("pg_ctl").toString(), "promote", "-w", "-t", "60", "-D", data.toString()), 90);
    }

    void start() throws Exception {
        pg(List.of(BIN.resolve("pg_ctl").toString(), "start", "-w", "-t", "120", "-D", data.toString(),
                "-l", dir.resolve("server.log").toString()), 150);
    }

    /** {@code pg_ctl restart -m fast|immediate}: every connection is cut; immediate means crash recovery. */
    void restart(String mode) throws Exception {
        pg(List.of(BIN.resolve("pg_ctl").toString(), "restart", "-w", "-t", "120", "-m", mode, "-D",
                data.toString(), "-l", dir.resolve("server.log").toString()), 150);
    }

    void createDatabase(String name) throws SQLException {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
    }

    /** The URL a service uses: its connections carry {@code application} as application_name. */
    String jdbcUrl(String database, String application) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?ApplicationName=" + application;
    }

    /** A connection of the harness itself (application_name {@value #HARNESS}, never terminated by faults). */
    Connection connect(String database) throws SQLException {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "postgres");
        p.setProperty("connectTimeout", "5");
        return DriverManager.getConnection(jdbcUrl(database, HARNESS), p);
    }

    Path log() {
        return dir.resolve("server.log");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            pg(List.of(BIN.resolve("pg_ctl").toString(), "stop", "-m", "immediate", "-w", "-D", data.toString()),
                    60);
        } catch (Exception e) {
            System.out.println("[fault] could not stop the suite's cluster: " + e.getMessage());
        }
        if (!Boolean.getBoolean("fault.keep")) {
            try {
                run(List.of("rm", "-rf", dir.toString()), 60);
            } catch (Exception e) {
                System.out.println("[fault] could not remove " + dir + ": " + e.getMessage());
            }
        }
    }

    private void pg(List<String> cmd, int timeoutSeconds) throws Exception {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(cmd);
        run(full, timeoutSeconds);
    }

    private static String run(List<String> cmd, int timeoutSeconds) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static boolean portFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
