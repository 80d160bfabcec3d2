package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The progress of the rebuilds this instance runs, and of the last {@value #KEPT} it ran, in memory
 * (docs/rebuild.md "Progress"): {@code GET /v1/rebuilds/{id}} shows it when the rebuild ran here. Per instance, no
 * stream label (docs/metrics.md): {@code product_rebuild_progress_rows_per_second} and
 * {@code product_rebuild_progress_events_per_second}, the running loads' and catch-ups' rates over the last few
 * seconds summed, and {@code product_rebuild_progress_eta_seconds}, the longest time left among the running rebuilds
 * whose time left is known (NaN when none is).
 */
@Component
class RebuildProgresses {

    /** Ended rebuilds kept for their final counts. */
    static final int KEPT = 64;

    private final Map<UUID, RebuildProgress> running = new ConcurrentHashMap<>();
    /** Guarded by itself. */
    private final Map<UUID, RebuildProgress> ended = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, RebuildProgress> eldest) {
            return size() > KEPT;
        }
    };
    private volatile Duration lastCutover;

    RebuildProgresses(MeterRegistry meters) {
        Gauge.builder("product.rebuild.progress.rows.per.second", this,
                p -> p.running.values().stream().mapToDouble(RebuildProgress::rowsPerSecond).sum())
                .description("rows per second the rebuild loads on this instance copy, over the last few seconds")
                .register(meters);
        Gauge.builder("product.rebuild.progress.events.per.second", this,
                p -> p.running.values().stream().mapToDouble(RebuildProgress::eventsPerSecond).sum())
                .description("events per second the rebuild catch-ups on this instance apply, over the last few "
                        + "seconds")
                .register(meters);
        Gauge.builder("product.rebuild.progress.eta", this, RebuildProgresses::longestEta).baseUnit("seconds")
                .description("the longest estimated time left among the rebuilds this instance runs (NaN when none "
                        + "is known)")
                .register(meters);
    }

    /** The attempt runs here: its progress is what this instance shows for the rebuild. */
    void track(Started a) {
        running.put(a.id(), a.progress());
        synchronized (ended) {
            ended.remove(a.id());
        }
    }

    /** The rebuild no longer runs here (ended or handed over): its last figures are kept. */
    void ended(UUID id) {
        RebuildProgress p = running.remove(id);
        if (p != null) {
            synchronized (ended) {
                ended.put(id, p);
            }
        }
    }

    /** A cutover took {@code d}: the next estimates count it for theirs. */
    void cutoverTook(Duration d) {
        lastCutover = d;
    }

    Duration lastCutover() {
        return lastCutover;
    }

    /** @return the rebuild's progress when it runs or ran on this instance */
    Optional<RebuildProgress> of(UUID id) {
        RebuildProgress p = running.get(id);
        if (p != null) {
            return Optional.of(p);
        }
        synchronized (ended) {
            return Optional.ofNullable(ended.get(id));
        }
    }

    /** @return whether the rebuild runs on this instance now */
    boolean runs(UUID id) {
        return running.containsKey(id);
    }

    private double longestEta() {
        Duration cutover = lastCutover;
        return running.values().stream().mapToDouble(p -> p.etaSeconds(cutover)).filter(s -> !Double.isNaN(s))
                .max().orElse(Double.NaN);
    }
}
