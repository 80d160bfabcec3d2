package com.acme.catalog.product.rebuild;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.platform.concurrent.DaemonThreads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an attempt's resolver lease alive from its creation until the attempt ends: renews it every third of its
 * TTL on a timer of its own, whatever step runs (the load makes no resolver call and can outlast the TTL on a large
 * export; the export poll and the catch-up pages wait in between). A failed renewal is logged and kept: the steps
 * call {@link #check} between their polls and pages and {@link #renewNow} when they end, so a 410 restarts the
 * attempt and any other refusal fails it, as when they renewed themselves.
 */
final class LeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Runnable renew;
    private final ScheduledExecutorService timer;
    /** The failure of the latest periodic renewal; null once one succeeded after it. */
    private volatile RuntimeException failure;

    /** @param renew renews the lease (throws when the resolver refuses) */
    LeaseKeeper(Runnable renew, long periodMillis) {
        this.renew = renew;
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("rebuild-lease-keeper"));
        timer.scheduleWithFixedDelay(() -> {
            try {
                renew.run();
                failure = null;
            } catch (RuntimeException e) {
                failure = e;
                log.warn("lease renewal during a rebuild failed: {}", e.getMessage());
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** @throws RuntimeException what the latest periodic renewal failed with, if it failed */
    void check() {
        RuntimeException e = failure;
        if (e != null) {
            throw e;
        }
    }

    /** Renews at once, on the caller's thread. @throws RuntimeException when the resolver refuses */
    void renewNow() {
        renew.run();
        failure = null;
    }

    /** Stops renewing; a renewal under way is given a moment to end, so none follows a release of the lease. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
