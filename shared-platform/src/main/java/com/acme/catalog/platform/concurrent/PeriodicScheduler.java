package com.acme.catalog.platform.concurrent;

import java.time.Duration;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;

/**
 * A capability's scheduler: its {@link PeriodicTasks} made and scheduled when the application starts, stopped when
 * the context starts closing (before the pool and the other beans shut down) or at the lifecycle's stop, whichever
 * comes first, waiting up to {@link #STOP_WAIT} for a run in progress. A subclass names its threads and says what
 * runs how often in {@link #schedule}; it keeps the work itself in the capability's own classes.
 */
public abstract class PeriodicScheduler implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, Ordered {

    /** How long a stop waits for a run in progress. */
    public static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final String threadName;
    private final int threads;
    private volatile PeriodicTasks tasks;

    /**
     * @param threadName the thread's name, or the prefix of {@code threads} numbered threads
     * @param threads    how many threads the tasks share (1: one thread, a run waits for any other task's run)
     */
    protected PeriodicScheduler(String threadName, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1: " + threads);
        }
        this.threadName = threadName;
        this.threads = threads;
    }

    /** Schedules this scheduler's tasks; called once per start, on threads made for that start. */
    protected abstract void schedule(PeriodicTasks tasks);

    @Override
    public void start() {
        PeriodicTasks t = threads == 1 ? PeriodicTasks.onThread(threadName)
                : PeriodicTasks.onThreads(threadName, threads);
        schedule(t);
        tasks = t;
    }

    @Override
    public void stop() {
        PeriodicTasks t = tasks;
        tasks = null;
        if (t != null) {
            t.stop(STOP_WAIT);
        }
    }

    /** Stops background work as soon as the context starts closing. */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        stop();
    }

    @Override
    public boolean isRunning() {
        return tasks != null;
    }

    /** The order among the listeners of the context's closing; by default after those that ask to be first. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
