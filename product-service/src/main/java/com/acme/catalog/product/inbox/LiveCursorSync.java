package com.acme.catalog.product.inbox;

import java.util.List;

import com.acme.catalog.platform.concurrent.PeriodicScheduler;
import com.acme.catalog.platform.concurrent.PeriodicTasks;
import com.acme.catalog.product.progress.ProgressProperties;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Re-reads every serving generation's committed cursor at start and periodically: sets the gauges (so every
 * instance converges on the database) and offers the contiguous position for reporting, so progress committed
 * just before a crash still reaches the resolver. The periodic sync runs on a thread of its own
 * ({@code live-cursor-sync}).
 */
@Component
class LiveCursorSync extends PeriodicScheduler {

    private static final Logger log = LoggerFactory.getLogger(LiveCursorSync.class);

    private final GenerationRepository generations;
    private final EventApplier applier;
    private final InboxMetrics metrics;
    private final ProgressReporter progress;
    private final ProgressProperties properties;

    LiveCursorSync(GenerationRepository generations, EventApplier applier, InboxMetrics metrics,
            ProgressReporter progress, ProgressProperties properties) {
        super("live-cursor-sync", 1);
        this.generations = generations;
        this.applier = applier;
        this.metrics = metrics;
        this.progress = progress;
        this.properties = properties;
    }

    @EventListener(ApplicationReadyEvent.class)
    void atStart() {
        int streams = sync();
        log.info("offered the committed progress of {} serving generation(s) for reporting", streams);
    }

    /** {@link #sync} every {@code product.progress.resync-interval} after the one at start. */
    @Override
    protected void schedule(PeriodicTasks tasks) {
        tasks.every(properties.resyncInterval(), this::sync,
                e -> log.warn("could not resync serving cursors: {}", e.toString()));
    }

    int sync() {
        try {
            List<GenerationCursor> serving = generations.servingCursors();
            for (GenerationCursor c : serving) {
                metrics.observe(c, applier.heldEvents(c.generationId()));
                progress.offer(c.stream(), c.epoch(), c.appliedPosition());
            }
            return serving.size();
        } catch (RuntimeException e) {
            log.warn("could not resync serving cursors: {}", e.toString());
            return 0;
        }
    }
}
