package com.acme.catalog.product;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import com.acme.catalog.testsupport.HandMadeThreads;

import org.junit.jupiter.api.Test;

/**
 * The product's background threads are made only through {@code DaemonThreads} (daemon, named after their job,
 * logging what escapes their task), never by hand, and its periodic work runs on {@code PeriodicTasks}, never on
 * Spring's shared scheduler: a hand-made thread keeps a stopping JVM alive or dies without a word in the log.
 * {@code HandMadeThreadsTest} shows what the scan finds.
 */
class DaemonThreadsOnlyTest {

    /** Files that may make their own threads or use Spring's scheduler, each with its reason. None today. */
    private static final Map<String, String> ALLOWED = Map.of();

    @Test
    void noThreadIsMadeByHand() {
        assertThat(HandMadeThreads.find(Path.of("src/main/java/com/acme/catalog/product"), ALLOWED.keySet()))
                .as("threads made without DaemonThreads, periodic work outside PeriodicTasks").isEmpty();
    }
}
