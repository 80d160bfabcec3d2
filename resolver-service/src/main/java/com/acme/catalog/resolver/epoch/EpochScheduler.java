package com.acme.catalog.resolver.epoch;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.platform.concurrent.PeriodicTasks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The epoch capability's background work, on threads of its own: refreshing the held epochs
 * ({@code control.refresh-interval}), recording high-water marks ({@code control.high-water-mark-interval}) and
 * the rollback check (at start, then every {@code control.rollback-check-interval}, and soon after a write or the
 * relay saw a sign of one). Stopping records the marks still pending, so a short-lived process (the bootstrap
 * import command) leaves its high-water mark behind.
 */
@Component
class EpochScheduler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(EpochScheduler.class);

    private final EpochCache cache;
    private final HighWaterMarks marks;
    private final RollbackDetector detector;
    private final ControlStoreProperties properties;
    private final AtomicBoolean checkQueued = new AtomicBoolean();
    private volatile PeriodicTasks tasks;

    EpochScheduler(EpochCache cache, HighWaterMarks marks, RollbackDetector detector,
            ControlStoreProperties properties) {
        this.cache = cache;
        this.marks = marks;
        this.detector = detector;
        this.properties = properties;
    }

    @Override
    public void start() {
        PeriodicTasks t = PeriodicTasks.onThreads("epoch", 2);
        t.every(properties.refreshInterval(), () -> cache.refresh(), EpochScheduler::taskFailed);
        t.every(properties.highWaterMarkInterval(), () -> marks.flush(), EpochScheduler::taskFailed);
        t.every(Duration.ZERO, properties.rollbackCheckInterval(), this::check, EpochScheduler::checkFailed);
        tasks = t;
    }

    private static void taskFailed(RuntimeException e) {
        log.warn("epoch background task failed; it runs again: {}", e.toString());
    }

    /** Runs a rollback check soon, once however often it is asked for before it runs. */
    void checkSoon() {
        PeriodicTasks t = tasks;
        if (t != null && checkQueued.compareAndSet(false, true)
                && !t.runSoon(this::check, EpochScheduler::checkFailed)) {
            checkQueued.set(false); // stopping
        }
    }

    private void check() {
        checkQueued.set(false);
        try {
            // what this instance committed first: a check asked for by a write behind it then finds it recorded
            marks.flush();
        } catch (RuntimeException e) {
            log.warn("could not record the high-water marks before a rollback check: {}", e.toString());
        }
        detector.check();
    }

    private static void checkFailed(RuntimeException e) {
        log.warn("rollback check failed; the next one retries: {}", e.toString());
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t == null) {
            return;
        }
        t.stop(Duration.ofSeconds(10));
        try {
            marks.flush();
        } catch (RuntimeException ex) {
            log.warn("could not record the last high-water marks at shutdown: {}", ex.toString());
        }
    }

    @Override
    public boolean isRunning() {
        return tasks != null;
    }

    /** Before the web server starts and after it stopped, so writes it still served get their marks recorded. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 4096;
    }
}
