package com.acme.catalog.resolver.epoch;

import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.platform.db.DatabaseCreator;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The connection to the control store: a small pool of its own and its own Flyway migrations
 * ({@code classpath:db/control}, schema {@code control}).
 *
 * <p>Deliberately not a {@code DataSource} bean: a second one would make Boot's DataSource, Flyway and JdbcClient
 * auto-configuration back off or pick the wrong one, and every repository of the resolver must keep talking to the
 * resolver's own database. Only the epoch capability reaches the control store, through {@link #jdbc()}.
 *
 * <p>At start the database is created when missing (like the resolver's, failing the start with its name when it
 * cannot be) and migrated. A store that cannot be reached at start does not stop the resolver: writes and the relay
 * fail closed until it answers, and the migration is retried on the first use that reaches it.
 *
 * <p>Every use reports its outcome here ({@link #reached}, {@link #failed}): {@code resolver_control_store_up} is 1
 * after a successful one, 0 after a failed one.
 */
@Component
class ControlStore implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ControlStore.class);

    private final HikariDataSource pool;
    private final JdbcClient jdbc;
    private final String url;
    private final AtomicInteger up = new AtomicInteger();
    private volatile boolean migrated;
    private volatile boolean failing;
    private volatile long lastFailureNanos;

    ControlStore(ControlStoreProperties properties, MeterRegistry registry) {
        Gauge.builder("resolver.control.store.up", up, AtomicInteger::get)
                .description("1 while the control store (history epochs) answers, 0 after a failed use")
                .register(registry);
        ControlStoreProperties.Datasource d = properties.datasource();
        this.url = d.url();
        DatabaseCreator.ensureExists(d.url(), d.username(), d.password());
        HikariConfig config = new HikariConfig();
        config.setPoolName("control");
        config.setJdbcUrl(d.url());
        config.setUsername(d.username());
        config.setPassword(d.password());
        config.setSchema("control");
        config.setMaximumPoolSize(d.poolSize());
        config.setMinimumIdle(1);
        config.setConnectionTimeout(Math.max(250, d.connectTimeout().toMillis()));
        config.setValidationTimeout(Math.max(250, Math.min(d.connectTimeout().toMillis(), 5000)));
        // no failure at construction: an unreachable store is a state the resolver runs in (fail closed)
        config.setInitializationFailTimeout(-1);
        config.addDataSourceProperty("connectTimeout", Math.max(1, d.connectTimeout().toSeconds()));
        config.addDataSourceProperty("socketTimeout", Math.max(1, d.queryTimeout().toSeconds()));
        config.addDataSourceProperty("ApplicationName", "resolver-control");
        this.pool = new HikariDataSource(config);
        this.jdbc = JdbcClient.create(pool);
        try {
            migrate();
            reached();
        } catch (RuntimeException e) {
            failed(e);
            log.error("control store {} is not reachable at start ({}); writes and the relay fail closed until it "
                    + "is", url, e.toString());
        }
    }

    /**
     * The control store's client, migrated.
     *
     * @throws ApiException 503 {@code CONTROL_STORE_UNAVAILABLE} when the store cannot be migrated now
     */
    JdbcClient jdbc() {
        if (!migrated) {
            try {
                migrate();
            } catch (RuntimeException e) {
                failed(e);
                throw unavailable(e);
            }
        }
        return jdbc;
    }

    /** A use of the store succeeded. */
    void reached() {
        if (failing) {
            log.info("control store {} answers again", url);
        }
        failing = false;
        up.set(1);
    }

    /** A use of the store failed (it could not be reached, or timed out). */
    void failed(RuntimeException e) {
        lastFailureNanos = System.nanoTime();
        if (!failing) {
            log.warn("control store {} unreachable: {}", url, e.toString());
        }
        failing = true;
        up.set(0);
    }

    /** @return whether the last use failed less than {@code nanos} ago */
    boolean failedWithin(long nanos) {
        return failing && System.nanoTime() - lastFailureNanos < nanos;
    }

    /** The answer to a failed use of the store, naming it. */
    ApiException unavailable(Exception cause) {
        // the driver's words name hosts and users: failed() logged them, the client gets none
        return new ApiException(ProblemCode.CONTROL_STORE_UNAVAILABLE, "the control store cannot be reached; "
                + "see the resolver's log", cause);
    }

    private synchronized void migrate() {
        if (migrated) {
            return;
        }
        Flyway.configure().dataSource(pool).locations("classpath:db/control").schemas("control")
                .defaultSchema("control").load().migrate();
        migrated = true;
        log.info("control store {} migrated", url);
    }

    @Override
    public void destroy() {
        pool.close();
    }
}
