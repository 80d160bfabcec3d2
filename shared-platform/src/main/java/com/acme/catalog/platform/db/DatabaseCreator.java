package com.acme.catalog.platform.db;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Prepares the service's PostgreSQL database before Flyway touches the pool: first waits, bounded by
 * {@code database.start.timeout}, for a server that is unreachable, starting or shutting down
 * ({@link DatabaseStartWait}), so a service started beside its database or during a failover comes up once the
 * database does instead of exiting; then creates the database the URL names when it does not exist yet and the
 * configured user may (otherwise start fails with a message naming it).
 */
public final class DatabaseCreator implements BeanPostProcessor, EnvironmentAware {

    private static final Logger log = LoggerFactory.getLogger(DatabaseCreator.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,63}");

    private DatabaseStartProperties startProperties = new DatabaseStartProperties(Duration.ofMinutes(3),
            Duration.ofSeconds(2));

    /** Binds {@code database.start.*} here: a post-processor is created before properties beans exist. */
    @Override
    public void setEnvironment(Environment environment) {
        startProperties = Binder.get(environment).bindOrCreate("database.start", DatabaseStartProperties.class);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource ds && ds.getJdbcUrl() != null
                && ds.getJdbcUrl().startsWith("jdbc:postgresql:")) {
            awaitServer(ds.getJdbcUrl(), ds.getUsername(), ds.getPassword(), startProperties);
            ensureExists(ds.getJdbcUrl(), ds.getUsername(), ds.getPassword());
        }
        return bean;
    }

    /**
     * Waits until the server behind the URL accepts connections (a missing database counts: it is created next).
     *
     * @throws IllegalStateException after {@code database.start.timeout} without an answer
     */
    public static void awaitServer(String jdbcUrl, String user, String password, DatabaseStartProperties wait) {
        Properties p = credentials(user, password);
        // one attempt must not outlast the wait (the driver's default connect timeout is 10 s)
        long seconds = Math.max(1, Math.min(10, wait.retryInterval().toSeconds() + 1));
        p.setProperty("connectTimeout", Long.toString(seconds));
        p.setProperty("loginTimeout", Long.toString(seconds));
        // the URL without its parameters: they may carry a password
        new DatabaseStartWait(wait).await(jdbcUrl.replaceFirst("\\?.*$", ""), () -> {
            try (Connection ignored = DriverManager.getConnection(jdbcUrl, p)) {
                return;
            } catch (SQLException e) {
                if ("3D000".equals(e.getSQLState())) {
                    return; // the server answers; the database is created next
                }
                throw e;
            }
        });
    }

    private static Properties credentials(String user, String password) {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        return p;
    }

    /** Creates the URL's database unless it exists. */
    public static void ensureExists(String jdbcUrl, String user, String password) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String database = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        if (!NAME.matcher(database).matches()) {
            return; // unusual names are left to the operator
        }
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        String adminUrl = "jdbc:postgresql://" + uri.getRawAuthority() + "/postgres" + query;
        Properties p = credentials(user, password);
        try (Connection ignored = DriverManager.getConnection(jdbcUrl, p)) {
            return;
        } catch (SQLException e) {
            if (!"3D000".equals(e.getSQLState())) {
                return; // not a missing database: let the pool report it as it is
            }
        }
        try (Connection c = DriverManager.getConnection(adminUrl, p); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE \"" + database + "\"");
            log.info("created database {}", database);
        } catch (SQLException e) {
            if ("42P04".equals(e.getSQLState())) {
                return; // another instance created it at the same moment
            }
            throw new IllegalStateException("database '" + database + "' (" + jdbcUrl + ") does not exist and could "
                    + "not be created: " + e.getMessage() + ". Create it, or grant CREATEDB to the user.", e);
        }
    }
}
