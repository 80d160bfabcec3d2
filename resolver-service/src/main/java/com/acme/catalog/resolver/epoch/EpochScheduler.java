package com.acme.catalog.resolver.epoch;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.contracts.concurrent.DaemonThreads;

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
    private volatile ScheduledExecutorService executor;

    EpochScheduler(EpochCache cache, HighWaterMarks marks, RollbackDetector detector,
            ControlStoreProperties properties) {
        this.cache = cache;
        this.marks = marks;
        this.detector = detector;
        this.properties = properties;
    }

    @Override
    public void start() {
        ScheduledExecutorService e = Executors.newScheduledThreadPool(2, DaemonThreads.numbered("epoch"));
        every(e, properties.refreshInterval().toMillis(), () -> cache.refresh());
        every(e, properties.highWaterMarkInterval().toMillis(), () -> marks.flush());
        e.scheduleWithFixedDelay(this::check, 0, properties.rollbackCheckInterval().toMillis(),
                TimeUnit.MILLISECONDS);
        executor = e;
    }

    private static void every(ScheduledExecutorService e, long millis, Runnable task) {
        e.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException ex) {
                log.warn("epoch background task failed; it runs again: {}", ex.toString());
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs a rollback check soon, once however often it is asked for before it runs. */
    void checkSoon() {
        ScheduledExecutorService e = executor;
        if (e != null && checkQueued.compareAndSet(false, true)) {
            try {
                e.execute(this::check);
            } catch (RejectedExecutionException stopping) {
                checkQueued.set(false);
            }
        }
    }

    private void check() {
        checkQueued.set(false);
        try {
            detector.check();
        } catch (RuntimeException e) {
            log.warn("rollback check failed; the next one retries: {}", e.toString());
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService e = executor;
        executor = null;
        if (e == null) {
            return;
        }
        e.shutdownNow();
        try {
            e.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        try {
            marks.flush();
        } catch (RuntimeException ex) {
            log.warn("could not record the last high-water marks at shutdown: {}", ex.toString());
        }
    }

    @Override
    public boolean isRunning() {
        return executor != null;
    }

    /** Before the web server starts and after it stopped, so writes it still served get their marks recorded. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 4096;
    }
}
