package com.acme.catalog.platform.concurrent;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one way both services run periodic background work: a scheduler's tasks on daemon threads of its own
 * ({@link DaemonThreads}); each periodic task runs at a fixed delay after the end of its previous run, so a long run
 * never overlaps the next; a run that throws hands the exception to the owner's {@code onFailure} (which logs it in
 * the owner's words) and the next run comes as scheduled. Made at the owner's start (a {@code SmartLifecycle}),
 * stopped at its stop; a stopped instance runs nothing more. Not Spring's {@code @Scheduled}: that runs every job of
 * the application on one shared scheduler thread, where a slow job delays the others.
 */
public final class PeriodicTasks {

    private final ScheduledExecutorService executor;

    private PeriodicTasks(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** @return tasks that share one thread named {@code name}: a run waits for any other task's run to end */
    public static PeriodicTasks onThread(String name) {
        return new PeriodicTasks(Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(name)));
    }

    /** @return tasks on {@code threads} threads named {@code prefix-1}, {@code prefix-2}, … */
    public static PeriodicTasks onThreads(String prefix, int threads) {
        return new PeriodicTasks(Executors.newScheduledThreadPool(threads, DaemonThreads.numbered(prefix)));
    }

    /** Runs {@code task} every {@code interval}, the first time one interval from now. */
    public void every(Duration interval, Runnable task, Consumer<RuntimeException> onFailure) {
        every(interval, interval, task, onFailure);
    }

    /**
     * Runs {@code task} {@code first} from now, then {@code interval} after the end of each run.
     *
     * @throws IllegalArgumentException when the interval is under a millisecond
     */
    public void every(Duration first, Duration interval, Runnable task, Consumer<RuntimeException> onFailure) {
        executor.scheduleWithFixedDelay(guarded(task, onFailure), first.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** @return whether {@code task} will run once, as soon as a thread is free; false once stopped */
    public boolean runSoon(Runnable task, Consumer<RuntimeException> onFailure) {
        try {
            executor.execute(guarded(task, onFailure));
            return true;
        } catch (RejectedExecutionException stopped) {
            return false;
        }
    }

    /**
     * Interrupts the running tasks, runs no more and waits up to {@code wait} for a run in progress to end (a task in
     * a database statement ends when the statement does). An interrupt of the stopping thread is kept.
     */
    public void stop(Duration wait) {
        DaemonThreads.stop(executor, wait);
    }

    private static Runnable guarded(Runnable task, Consumer<RuntimeException> onFailure) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                onFailure.accept(e);
            }
        };
    }
}
