package com.acme.catalog.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The scan both services' {@code DaemonThreadsOnlyTest} run finds every kind of hand-made thread, and nothing else. */
class HandMadeThreadsTest {

    @Test
    void theScanFindsPlantedThreads() {
        String source = """
                import org.springframework.scheduling.annotation.SchedulingConfigurer;
                @EnableScheduling class Planted implements SchedulingConfigurer {
                    // new Thread(r) in a comment is not code
                    Thread a = new Thread(() -> { }, "planted");
                    ExecutorService b = Executors.newFixedThreadPool(2);
                    ExecutorService c = Executors.newFixedThreadPool(2, r -> { return r == null ? null : null; });
                    ExecutorService d = Executors.newSingleThreadExecutor(DaemonThreads.named("fine"));
                    Thread e = Thread.ofPlatform().unstarted(() -> { });
                    ExecutorService f = new ThreadPoolExecutor(1, 1, 0, MILLISECONDS, queue);
                    ExecutorService g = new ThreadPoolExecutor(1, 1, 0, MILLISECONDS, queue, DaemonThreads.named("fine"));
                    @Scheduled(fixedDelay = 1000) void tick() { }
                }
                """;

        assertThat(HandMadeThreads.find("Planted.java", source)).containsExactly(
                "Planted.java:2: @EnableScheduling", "Planted.java:2: SchedulingConfigurer", "Planted.java:4: new Thread(",
                "Planted.java:8: Thread.ofPlatform(", "Planted.java:11: @Scheduled",
                "Planted.java:5: Executors.newFixedThreadPool(2)",
                "Planted.java:6: Executors.newFixedThreadPool(2, r -> { return r == null ? null : null; })",
                "Planted.java:9: new ThreadPoolExecutor(1, 1, 0, MILLISECONDS, queue)");
    }
}
