package com.acme.catalog.resolver.export;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Fails stale exports ({@link ExportHousekeeping#failStaleExports}) every {@code export.sweep-interval}. */
@Component
class ExportSweepScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(ExportSweepScheduler.class);

    private final ExportHousekeeping housekeeping;
    private final ExportProperties properties;

    ExportSweepScheduler(ExportHousekeeping housekeeping, ExportProperties properties) {
        super("export-sweep", 1);
        this.housekeeping = housekeeping;
        this.properties = properties;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.every(properties.sweepInterval(), housekeeping::failStaleExports,
                e -> log.warn("the stale export sweep failed; the next sweep retries", e));
    }
}
