package com.acme.catalog.product.epoch;

import java.time.Duration;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** {@link StreamEpochs#reload} at start and every {@code product.epochs.reload-interval} after. */
@Component
class EpochReloadScheduler extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(EpochReloadScheduler.class);

    private final StreamEpochs epochs;
    private final EpochProperties properties;

    EpochReloadScheduler(StreamEpochs epochs, EpochProperties properties) {
        super("epoch-reload", 1);
        this.epochs = epochs;
        this.properties = properties;
    }

    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.every(Duration.ZERO, properties.reload(), epochs::reload,
                e -> log.warn("could not reload the known epochs: {}", e.toString()));
    }
}
