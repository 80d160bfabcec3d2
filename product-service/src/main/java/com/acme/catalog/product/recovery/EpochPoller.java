package com.acme.catalog.product.recovery;

import java.time.Duration;

import com.acme.catalog.product.epoch.EpochProperties;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.resolver.ResolverClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Reads every served stream's current epoch from the resolver ({@code GET /v1/epochs/{t}/{c}}) every
 * {@code product.epochs.poll-ms}; a serving generation of an older epoch is stale from then on (the inbox ignores
 * its epoch's events, serving follows {@code product.epochs.stale-serving}) and the recovery worker is asked to
 * rebuild it from an export of the new epoch. A failed read changes nothing (the epoch known stays known).
 */
@Component
class EpochPoller implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(EpochPoller.class);

    private final GenerationRepository generations;
    private final ResolverClient resolver;
    private final StreamEpochs epochs;
    private final RecoveryWorker worker;
    private final boolean enabled;
    private final Duration every;

    EpochPoller(GenerationRepository generations, ResolverClient resolver, StreamEpochs epochs,
            RecoveryWorker worker, RecoveryProperties recovery, EpochProperties properties) {
        this.generations = generations;
        this.resolver = resolver;
        this.epochs = epochs;
        this.worker = worker;
        this.enabled = recovery.enabled();
        this.every = properties.poll();
    }

    /** {@link #poll} every {@code product.epochs.poll-ms}, the first one interval after start. */
    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(new FixedDelayTask(this::poll, every, every));
    }

    void poll() {
        if (!enabled) {
            return;
        }
        for (GenerationCursor c : generations.servingCursors()) {
            boolean raised = false;
            try {
                raised = epochs.learn(c.stream(), resolver.currentEpoch(c.stream()));
            } catch (RuntimeException e) {
                log.debug("{}: could not read the current epoch: {}", c.stream(), e.toString());
            }
            if (raised && epochs.current(c.stream()) > c.epoch()) {
                worker.epochChanged(c.stream());
            } else if (epochs.current(c.stream()) > c.epoch()) {
                worker.trigger(c.stream(), RecoveryWorker.Trigger.EPOCH_MISMATCH);
            }
        }
    }
}
