package com.acme.catalog.resolver.periodic;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The resolver's old name of {@link com.acme.catalog.platform.concurrent.PeriodicTasks}, which both services now
 * share: every call goes to it. Kept only while {@code epoch/EpochScheduler} and
 * {@code evidence/EvidenceRetentionScheduler} still import it; delete this package when they import the shared class.
 */
public final class PeriodicTasks {

    private final com.acme.catalog.platform.concurrent.PeriodicTasks tasks;

    private PeriodicTasks(com.acme.catalog.platform.concurrent.PeriodicTasks tasks) {
        this.tasks = tasks;
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#onThread */
    public static PeriodicTasks onThread(String name) {
        return new PeriodicTasks(com.acme.catalog.platform.concurrent.PeriodicTasks.onThread(name));
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#onThreads */
    public static PeriodicTasks onThreads(String prefix, int threads) {
        return new PeriodicTasks(com.acme.catalog.platform.concurrent.PeriodicTasks.onThreads(prefix, threads));
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#every(Duration, Runnable, Consumer) */
    public void every(Duration interval, Runnable task, Consumer<RuntimeException> onFailure) {
        tasks.every(interval, task, onFailure);
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#every(Duration, Duration, Runnable, Consumer) */
    public void every(Duration first, Duration interval, Runnable task, Consumer<RuntimeException> onFailure) {
        tasks.every(first, interval, task, onFailure);
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#runSoon */
    public boolean runSoon(Runnable task, Consumer<RuntimeException> onFailure) {
        return tasks.runSoon(task, onFailure);
    }

    /** @see com.acme.catalog.platform.concurrent.PeriodicTasks#stop */
    public void stop(Duration wait) {
        tasks.stop(wait);
    }
}
