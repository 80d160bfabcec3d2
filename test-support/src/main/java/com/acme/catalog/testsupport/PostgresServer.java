package com.acme.catalog.testsupport;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL server tests create their databases on; resolved once per JVM, in order: the configured server
 * ({@code TEST_DATABASE_URL}, else 127.0.0.1:5432 as {@code postgres}) when it answers, else a Testcontainers
 * PostgreSQL when a Docker engine runs, else an {@link EmbeddedPostgresServer} when nothing answered at the
 * configured URL (a server that answers but refuses the login is an error, as before).
 */
final class PostgresServer {

    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);
    private static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
    private static volatile PostgresServer instance;

    private final String adminUrl;
    private final String username;
    private final String password;
    /** The embedded server and why the tests run on it, or null when they do not. */
    private final EmbeddedPostgresServer embedded;
    private final String embeddedBecause;

    private PostgresServer(String adminUrl, String username, String password) {
        this(adminUrl, username, password, null, null);
    }

    private PostgresServer(String adminUrl, String username, String password, EmbeddedPostgresServer embedded,
            String embeddedBecause) {
        this.adminUrl = adminUrl;
        this.username = username;
        this.password = password;
        this.embedded = embedded;
        this.embeddedBecause = embeddedBecause;
    }

    static PostgresServer get() {
        PostgresServer s = instance;
        if (s == null) {
            synchronized (PostgresServer.class) {
                if (instance == null) {
                    instance = resolve(System::getenv, PostgresServer::dockerAvailable);
                }
                s = instance;
            }
        }
        return s;
    }

    /** The resolution order above, with the environment and the Docker probe given (tests pass their own). */
    static PostgresServer resolve(Function<String, String> env, BooleanSupplier docker) {
        String explicit = env.apply("TEST_DATABASE_URL");
        boolean configured = explicit != null && !explicit.isBlank();
        String user = env.apply("TEST_DATABASE_USERNAME");
        PostgresServer server = configured
                ? new PostgresServer(explicit, user == null || user.isBlank() ? "postgres" : user,
                        env.apply("TEST_DATABASE_PASSWORD"))
                : new PostgresServer(LOCAL_URL, "postgres", null);
        String source = configured ? "TEST_DATABASE_URL (" + explicit + ")" : LOCAL_URL;
        SQLException failure;
        try {
            server.adminConnection().close();
            return server;
        } catch (SQLException e) {
            failure = e;
        }
        boolean refused = !nothingAnswers(failure);
        if (refused && configured) {
            throw refusal(source, failure);
        }
        if (docker.getAsBoolean()) {
            PostgreSQLContainer pg = new PostgreSQLContainer("postgres:15");
            pg.start();
            Runtime.getRuntime().addShutdownHook(new Thread(pg::stop, "stop-test-postgres"));
            return new PostgresServer(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
        }
        if (refused) {
            throw refusal(source, failure);
        }
        String because = "nothing answers at " + source + " (" + failure.getMessage() + ") and no Docker engine runs";
        return embedded(because);
    }

    private static IllegalStateException refusal(String source, SQLException failure) {
        return new IllegalStateException("No PostgreSQL for tests: " + source + " answered but refused: "
                + failure.getMessage() + ". Fix TEST_DATABASE_URL / TEST_DATABASE_USERNAME / TEST_DATABASE_PASSWORD "
                + "or the server's pg_hba.conf (the local convention: user postgres, trust auth on 127.0.0.1), or "
                + "run a Docker engine.", failure);
    }

    /** A connection-level failure (SQLState class 08): no server there, as opposed to one that refused us. */
    static boolean nothingAnswers(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("08");
    }

    private static PostgresServer embedded(String because) {
        EmbeddedPostgresServer pg;
        try {
            pg = EmbeddedPostgresServer.start(0);
        } catch (IOException | LinkageError e) {
            throw new IllegalStateException("No PostgreSQL for tests: " + because + ", and " + e.getMessage()
                    + ". Set TEST_DATABASE_URL, start a local server on 127.0.0.1:5432 with user postgres (e.g. "
                    + "pg_ctlcluster 15 main start), or run a Docker engine.", e);
        }
        log.warn("Tests use an EMBEDDED PostgreSQL {} at {} ({}); started once for this JVM, each test class still "
                + "gets its own fresh database; tests that need PostgreSQL's own tools (pg_dump, pg_restore, psql) "
                + "skip; server log: {}", pg.version(), pg.adminUrl(), because, pg.log());
        return new PostgresServer(pg.adminUrl(), "postgres", null, pg, because);
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    Connection adminConnection() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", username);
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty("connectTimeout", "5");
        return DriverManager.getConnection(adminUrl, p);
    }

    /** The admin URL with its database name replaced, query string kept. */
    String urlFor(String database) {
        URI uri = URI.create(adminUrl.substring("jdbc:".length()));
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        return "jdbc:postgresql://" + uri.getRawAuthority() + "/" + database + query;
    }

    String username() {
        return username;
    }

    String password() {
        return password;
    }

    String describe() {
        return adminUrl;
    }

    /** Whether this is the embedded server, which has no psql, pg_dump or pg_restore of its own. */
    boolean embedded() {
        return embeddedBecause != null;
    }

    /** Why the tests run on the embedded server, or null when they do not. */
    String embeddedBecause() {
        return embeddedBecause;
    }

    /** Stops and deletes the embedded server now (else at JVM exit); nothing for any other server. */
    void stopEmbedded() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
