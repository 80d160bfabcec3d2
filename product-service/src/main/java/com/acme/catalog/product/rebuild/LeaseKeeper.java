package com.acme.catalog.product.rebuild;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews a rebuild's resolver lease every third of its TTL while a long step that makes no resolver call of its
 * own runs (the load: one database transaction that can outlast the TTL on a large export). A failed renewal is
 * only logged here: the step's caller renews once more when the step ends, and a 410 then restarts the attempt.
 */
final class LeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final ScheduledExecutorService timer;

    /** @param renew renews the lease (throws when the resolver refuses) */
    LeaseKeeper(Runnable renew, long periodMillis) {
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rebuild-lease-keeper");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(() -> {
            try {
                renew.run();
            } catch (RuntimeException e) {
                log.warn("lease renewal during a long rebuild step failed: {}", e.getMessage());
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
