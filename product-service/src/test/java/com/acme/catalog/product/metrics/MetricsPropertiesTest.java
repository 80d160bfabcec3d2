package com.acme.catalog.product.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.metrics.*}: the keys and defaults of before the record. */
class MetricsPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.metrics", MetricsProperties.class, Map.of())).isEqualTo(
                new MetricsProperties(Duration.ofMillis(500), Duration.ofSeconds(10)));
        assertThat(Bound.bind("product.metrics", MetricsProperties.class, Map.of(
                "product.metrics.known-streams-initial-ms", "0", "product.metrics.known-streams-ms", "200")))
                .isEqualTo(new MetricsProperties(Duration.ZERO, Duration.ofMillis(200)));
        assertThatThrownBy(() -> Bound.bind("product.metrics", MetricsProperties.class,
                Map.of("product.metrics.known-streams-ms", "0")))
                .rootCause().hasMessageContaining("product.metrics.known-streams-ms");
    }
}
