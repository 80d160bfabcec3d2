package com.acme.catalog.product.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.progress.*}: the keys and defaults of before the record. */
class ProgressPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.progress", ProgressProperties.class, Map.of())).isEqualTo(new ProgressProperties(
                Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofMinutes(1)));
        assertThat(Bound.bind("product.progress", ProgressProperties.class, Map.of(
                "product.progress.initial-backoff-ms", "20", "product.progress.max-backoff-ms", "200",
                "product.progress.min-interval-ms", "0", "product.progress.resync-interval-ms", "1000")))
                .isEqualTo(new ProgressProperties(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ZERO,
                        Duration.ofSeconds(1)));
    }

    @Test
    void refusesWhatWouldBreakTheReporter() {
        assertThatThrownBy(() -> Bound.bind("product.progress", ProgressProperties.class,
                Map.of("product.progress.initial-backoff-ms", "0")))
                .rootCause().hasMessageContaining("initial-backoff-ms");
        assertThatThrownBy(() -> Bound.bind("product.progress", ProgressProperties.class,
                Map.of("product.progress.resync-interval-ms", "-1")))
                .rootCause().hasMessageContaining("product.progress.resync-interval-ms");
    }
}
