package com.acme.catalog.product.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.progress.*}: the Duration keys (ISO or with a unit) and the defaults of before the record. */
class ProgressPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.progress", ProgressProperties.class, Map.of())).isEqualTo(new ProgressProperties(
                Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofMinutes(1)));
        assertThat(Bound.bind("product.progress", ProgressProperties.class, Map.of(
                "product.progress.initial-backoff", "PT0.02S", "product.progress.max-backoff", "200ms",
                "product.progress.min-interval", "0s", "product.progress.resync-interval", "PT1S")))
                .isEqualTo(new ProgressProperties(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ZERO,
                        Duration.ofSeconds(1)));
    }

    @Test
    void refusesWhatWouldBreakTheReporter() {
        assertThatThrownBy(() -> Bound.bind("product.progress", ProgressProperties.class,
                Map.of("product.progress.initial-backoff", "PT0S")))
                .rootCause().hasMessageContaining("initial-backoff");
        assertThatThrownBy(() -> Bound.bind("product.progress", ProgressProperties.class,
                Map.of("product.progress.resync-interval", "-PT1S")))
                .rootCause().hasMessageContaining("product.progress.resync-interval");
    }
}
