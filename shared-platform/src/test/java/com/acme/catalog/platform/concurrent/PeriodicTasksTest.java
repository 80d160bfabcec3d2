package com.acme.catalog.platform.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The shared lifecycle of the services' schedulers: a failing run is reported to its owner and does not end the
 * schedule, tasks run on the named daemon threads, and a stop interrupts a run and refuses further ones.
 */
class PeriodicTasksTest {

    private static final long AWAIT_SECONDS = 30;

    @Test
    void aRunThatThrowsIsReportedAndTheTaskRunsAgain() throws Exception {
        PeriodicTasks tasks = PeriodicTasks.onThread("periodic-test");
        List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        CountDownLatch twice = new CountDownLatch(2);
        AtomicInteger runs = new AtomicInteger();
        try {
            tasks.every(Duration.ZERO, Duration.ofMillis(1), () -> {
                twice.countDown();
                throw new IllegalStateException("run " + runs.incrementAndGet());
            }, failures::add);
            assertThat(twice.await(AWAIT_SECONDS, TimeUnit.SECONDS)).as("ran again after a failure").isTrue();
        } finally {
            tasks.stop(Duration.ofSeconds(10));
        }
        assertThat(failures).hasSizeGreaterThanOrEqualTo(2);
        assertThat(failures.get(0)).hasMessage("run 1");
        assertThat(failures.get(1)).hasMessage("run 2");
    }

    @Test
    void tasksRunOnNamedDaemonThreads() throws Exception {
        PeriodicTasks one = PeriodicTasks.onThread("periodic-one");
        PeriodicTasks two = PeriodicTasks.onThreads("periodic-pool", 2);
        List<Thread> threads = new CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(2);
        try {
            assertThat(one.runSoon(() -> {
                threads.add(Thread.currentThread());
                ran.countDown();
            }, e -> { })).isTrue();
            two.every(Duration.ZERO, Duration.ofHours(1), () -> {
                threads.add(Thread.currentThread());
                ran.countDown();
            }, e -> { });
            assertThat(ran.await(AWAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        } finally {
            one.stop(Duration.ofSeconds(10));
            two.stop(Duration.ofSeconds(10));
        }
        assertThat(threads).allSatisfy(t -> assertThat(t.isDaemon()).isTrue());
        assertThat(threads).extracting(Thread::getName)
                .containsExactlyInAnyOrder("periodic-one", "periodic-pool-1");
    }

    @Test
    void stopInterruptsARunWaitsForItAndRunsNothingMore() throws Exception {
        PeriodicTasks tasks = PeriodicTasks.onThread("periodic-stop");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        tasks.runSoon(() -> {
            running.countDown();
            try {
                new CountDownLatch(1).await(); // until interrupted
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
            }
            ended.countDown();
        }, e -> { });
        assertThat(running.await(AWAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        tasks.stop(Duration.ofSeconds(AWAIT_SECONDS));

        assertThat(ended.getCount()).as("the run ended before stop returned").isZero();
        assertThat(interrupted).hasValue(1);
        assertThat(tasks.runSoon(() -> { }, e -> { })).as("a stopped instance runs nothing").isFalse();
    }
}
