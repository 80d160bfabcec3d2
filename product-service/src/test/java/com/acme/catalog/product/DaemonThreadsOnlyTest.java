package com.acme.catalog.product;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;

import com.acme.catalog.testsupport.HandMadeThreads;

import org.junit.jupiter.api.Test;

/**
 * The product's background threads are made only through {@code DaemonThreads} (daemon, named after their job,
 * logging what escapes their task), never by hand: a hand-made thread keeps a stopping JVM alive or dies without a
 * word in the log.
 */
class DaemonThreadsOnlyTest {

    /** Files that may make their own threads, each with its reason. None today. */
    private static final Set<String> ALLOWED = Set.of();

    @Test
    void noThreadIsMadeByHand() {
        assertThat(HandMadeThreads.find(Path.of("src/main/java/com/acme/catalog/product"), ALLOWED))
                .as("threads made without DaemonThreads").isEmpty();
    }

    @Test
    void theScanFindsAPlantedThread() {
        String source = """
                class Planted {
                    // new Thread(r) in a comment is not code
                    Thread a = new Thread(() -> { }, "planted");
                    ExecutorService b = Executors.newFixedThreadPool(2);
                    ExecutorService c = Executors.newFixedThreadPool(2, r -> { return r == null ? null : null; });
                    ExecutorService d = Executors.newSingleThreadExecutor(DaemonThreads.named("fine"));
                    Thread e = Thread.ofPlatform().unstarted(() -> { });
                }
                """;

        assertThat(HandMadeThreads.find("Planted.java", source)).containsExactly(
                "Planted.java:3: new Thread(", "Planted.java:7: Thread.ofPlatform(",
                "Planted.java:4: Executors.newFixedThreadPool(2)",
                "Planted.java:5: Executors.newFixedThreadPool(2, r -> { return r == null ? null : null; })");
    }
}
