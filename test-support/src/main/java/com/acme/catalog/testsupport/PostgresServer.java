package com.acme.catalog.testsupport;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/** The PostgreSQL server tests create their databases on; resolved once per JVM. */
final class PostgresServer {

    private static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
    private static volatile PostgresServer instance;

    private final String adminUrl;
    private final String username;
    private final String password;

    private PostgresServer(String adminUrl, String username, String password) {
        this.adminUrl = adminUrl;
        this.username = username;
        this.password = password;
    }

    static PostgresServer get() {
        PostgresServer s = instance;
        if (s == null) {
            synchronized (PostgresServer.class) {
                if (instance == null) {
                    instance = resolve();
                }
                s = instance;
            }
        }
        return s;
    }

    private static PostgresServer resolve() {
        String explicit = System.getenv("TEST_DATABASE_URL");
        if (explicit != null && !explicit.isBlank()) {
            PostgresServer s = new PostgresServer(explicit,
                    envOr("TEST_DATABASE_USERNAME", "postgres"), System.getenv("TEST_DATABASE_PASSWORD"));
            s.check("TEST_DATABASE_URL");
            return s;
        }
        PostgresServer local = new PostgresServer(LOCAL_URL, "postgres", null);
        SQLException localFailure;
        try {
            local.adminConnection().close();
            return local;
        } catch (SQLException e) {
            localFailure = e;
        }
        if (dockerAvailable()) {
            PostgreSQLContainer pg = new PostgreSQLContainer("postgres:15");
            pg.start();
            Runtime.getRuntime().addShutdownHook(new Thread(pg::stop, "stop-test-postgres"));
            return new PostgresServer(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
        }
        throw new IllegalStateException("No PostgreSQL for tests: set TEST_DATABASE_URL, start a local server on "
                + "127.0.0.1:5432 with user postgres (e.g. pg_ctlcluster 15 main start), or run a Docker engine. "
                + "Local server said: " + localFailure.getMessage());
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private void check(String source) {
        try {
            adminConnection().close();
        } catch (SQLException e) {
            throw new IllegalStateException(source + " (" + adminUrl + ") does not answer: " + e.getMessage(), e);
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

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
