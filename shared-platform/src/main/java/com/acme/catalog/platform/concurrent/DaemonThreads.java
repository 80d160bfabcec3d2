package com.acme.catalog.platform.concurrent;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services' background threads: daemon (a worker never keeps a stopping JVM alive; each owner stops its own
 * threads on shutdown), named after their job, and logging what escapes their task instead of printing it to
 * standard error.
 */
public final class DaemonThreads {

    private static final Logger log = LoggerFactory.getLogger(DaemonThreads.class);
    private static final Thread.UncaughtExceptionHandler LOG_UNCAUGHT =
            (t, e) -> log.error("thread {} ended by an uncaught exception", t.getName(), e);

    private DaemonThreads() {
    }

    /** @return an unstarted daemon thread named {@code name} that runs {@code task} */
    public static Thread newThread(Runnable task, String name) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler(LOG_UNCAUGHT);
        return t;
    }

    /** @return a factory of daemon threads all named {@code name} */
    public static ThreadFactory named(String name) {
        return task -> newThread(task, name);
    }

    /**
     * Stops a background executor: interrupts its tasks and waits up to {@code wait} for them to end (a task in a
     * database statement ends when the statement does). An interrupt of the stopping thread is kept.
     */
    public static void stop(ExecutorService executor, Duration wait) {
        if (executor == null) {
            return;
        }
        executor.shutdownNow();
        try {
            executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return a factory of daemon threads named {@code prefix-1}, {@code prefix-2}, … in the order made */
    public static ThreadFactory numbered(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> newThread(task, prefix + "-" + n.incrementAndGet());
    }
}
