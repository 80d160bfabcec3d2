package com.acme.catalog.platform.db;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Creates the database a PostgreSQL URL names when it does not exist yet and the configured user may; otherwise
 * start fails with a message naming it. Runs before Flyway touches the pool.
 */
public final class DatabaseCreator implements BeanPostProcessor {

    private static final Logger log = LoggerFactory.getLogger(DatabaseCreator.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,63}");

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource ds && ds.getJdbcUrl() != null
                && ds.getJdbcUrl().startsWith("jdbc:postgresql:")) {
            ensureExists(ds.getJdbcUrl(), ds.getUsername(), ds.getPassword());
        }
        return bean;
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
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
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
