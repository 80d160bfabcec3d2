package com.acme.catalog.resolver.epoch;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code control.*}: the control store (history epochs and high-water marks, docs/epochs.md) and how the resolver
 * uses it.
 *
 * @param datasource             where it is ({@code CONTROL_DATASOURCE_URL}, {@code _USERNAME}, {@code _PASSWORD})
 * @param refreshInterval        how often the epochs this instance holds (and {@code resolver_control_store_up}) are
 *                               re-read; also how long a stale instance may go on believing in a rotated epoch
 *                               before the database fence stops it
 * @param grace                  how long a held epoch is trusted without a successful read; after that, writes and
 *                               the relay fail closed (503 {@code CONTROL_STORE_UNAVAILABLE}) until the store answers
 * @param highWaterMarkInterval  how often committed positions are recorded in the control store (batched)
 * @param rollbackCheckInterval  how often every open cursor is compared with its high-water mark (also at start)
 * @param holdIdle               how long a held epoch no write or delivery used stays in the refresh: a quiet stream
 *                               then costs no read per refresh, and its next use reads the store once (as a stream's
 *                               first use does)
 */
@ConfigurationProperties("control")
record ControlStoreProperties(@DefaultValue Datasource datasource, @DefaultValue("PT1S") Duration refreshInterval,
        @DefaultValue("PT5S") Duration grace, @DefaultValue("PT1S") Duration highWaterMarkInterval,
        @DefaultValue("PT10S") Duration rollbackCheckInterval, @DefaultValue("PT1M") Duration holdIdle) {

    ControlStoreProperties {
        for (Duration d : new Duration[] {refreshInterval, grace, highWaterMarkInterval, rollbackCheckInterval,
                holdIdle}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("control.* intervals, the grace and hold-idle must be positive");
            }
        }
        if (grace.compareTo(refreshInterval) < 0) {
            throw new IllegalArgumentException("control.grace must be at least control.refresh-interval");
        }
    }

    /**
     * @param url            JDBC URL; its database is created at start when missing and the user may
     * @param username       user
     * @param password       password
     * @param poolSize       connections to the control store (reads of epochs, batched records, rotations)
     * @param connectTimeout how long a connection attempt may take before the store counts as unreachable
     * @param queryTimeout   how long one control-store statement may take (socket timeout)
     */
    record Datasource(@DefaultValue("jdbc:postgresql://localhost:5432/control") String url,
            @DefaultValue("postgres") String username, @DefaultValue("") String password,
            @DefaultValue("3") int poolSize, @DefaultValue("PT2S") Duration connectTimeout,
            @DefaultValue("PT5S") Duration queryTimeout) {

        Datasource {
            if (url == null || !url.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("control.datasource.url must be a jdbc:postgresql: URL");
            }
            if (poolSize < 1) {
                throw new IllegalArgumentException("control.datasource.pool-size must be >= 1");
            }
        }
    }
}
