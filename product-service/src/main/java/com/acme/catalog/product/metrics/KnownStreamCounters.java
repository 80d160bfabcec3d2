package com.acme.catalog.product.metrics;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Contract (docs/design.md §11): every named metric is registered at start, a counter at 0 before its first increment.
 * {@code product_old_epoch_deliveries_total} is incremented by the inbox only when an old-epoch event arrives, so
 * without this an alert on {@code increase(...)} could never see its first event (no series before it) and a
 * dashboard shows "no data". This registers the counter (same name, tags and description as the inbox's, so the
 * inbox increments this very counter) for every stream the product knows, shortly after start and then every
 * {@code product.metrics.known-streams-ms} (a stream bootstrapped or rebuilt later gets it then).
 */
@Component
class KnownStreamCounters implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(KnownStreamCounters.class);
    private static final String SQL_STREAMS = """
            SELECT tenant, catalog FROM serving_generation
            UNION SELECT tenant, catalog FROM rebuild
            """;

    private final JdbcClient jdbc;
    private final MeterRegistry registry;
    private final MetricsProperties properties;

    KnownStreamCounters(JdbcClient jdbc, MeterRegistry registry, MetricsProperties properties) {
        this.jdbc = jdbc;
        this.registry = registry;
        this.properties = properties;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::register, properties.knownStreams(),
                properties.knownStreamsInitial()));
    }

    void register() {
        try {
            for (StreamId s : jdbc.sql(SQL_STREAMS)
                    .query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list()) {
                oldEpochDeliveries(registry, s);
            }
        } catch (RuntimeException e) {
            log.warn("registering the known streams' counters failed; the next run retries", e);
        }
    }

    /** The inbox's counter (the inbox registers it with these exact name, tags and description). */
    static Counter oldEpochDeliveries(MeterRegistry registry, StreamId s) {
        return Counter.builder("product.old.epoch.deliveries")
                .description("deliveries of an epoch older than the serving generation's, audited and ignored")
                .tags("tenant", s.tenant(), "catalog", s.catalog()).register(registry);
    }
}
