package com.acme.catalog.product.completeness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.completeness.*}: the Duration keys and the defaults of before the record. */
class CompletenessPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.completeness", CompletenessProperties.class, Map.of())).isEqualTo(
                new CompletenessProperties(Duration.ofSeconds(10), Duration.ofMinutes(1)));
        assertThat(Bound.bind("product.completeness", CompletenessProperties.class, Map.of(
                "product.completeness.refresh-interval", "PT0.25S", "product.completeness.heartbeat-stale-after",
                "5s")))
                .isEqualTo(new CompletenessProperties(Duration.ofMillis(250), Duration.ofSeconds(5)));
        assertThatThrownBy(() -> Bound.bind("product.completeness", CompletenessProperties.class,
                Map.of("product.completeness.refresh-interval", "PT0S")))
                .rootCause().hasMessageContaining("product.completeness.refresh-interval");
    }
}
