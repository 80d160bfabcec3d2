package com.acme.catalog.product.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.product.epoch.EpochProperties.StaleServing;
import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.epochs.*}: the Duration keys and the defaults of before the record. */
class EpochPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.epochs", EpochProperties.class, Map.of())).isEqualTo(
                new EpochProperties(Duration.ofSeconds(5), Duration.ofSeconds(2), StaleServing.REFUSE));
        assertThat(Bound.bind("product.epochs", EpochProperties.class, Map.of(
                "product.epochs.poll-interval", "PT0.3S", "product.epochs.reload-interval", "700ms",
                "product.epochs.stale-serving", "serve"))).isEqualTo(
                new EpochProperties(Duration.ofMillis(300), Duration.ofMillis(700), StaleServing.SERVE));
    }

    @Test
    void refusesWhatWouldBreakTheService() {
        assertThatThrownBy(() -> Bound.bind("product.epochs", EpochProperties.class,
                Map.of("product.epochs.reload-interval", "PT0S"))).rootCause()
                .hasMessageContaining("product.epochs.reload-interval");
        assertThatThrownBy(() -> Bound.bind("product.epochs", EpochProperties.class,
                Map.of("product.epochs.stale-serving", "sometimes"))).hasMessageContaining("product.epochs");
    }
}
