package com.acme.catalog.product.completeness;

import java.time.Duration;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** {@link CompletenessService#refresh} at start and every {@code product.completeness.refresh-interval} after. */
@Component
class CompletenessScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(CompletenessScheduler.class);

    private final CompletenessService service;
    private final CompletenessProperties properties;

    CompletenessScheduler(CompletenessService service, CompletenessProperties properties) {
        super("completeness-refresh", 1);
        this.service = service;
        this.properties = properties;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.every(Duration.ZERO, properties.refresh(), service::refresh,
                e -> log.warn("could not refresh the completeness gauges: {}", e.toString()));
    }
}
