package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.streams.ProductStreamsProperties;
import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.recovery.*} and {@code product.streams}: the keys and defaults of before the records. */
class RecoveryPropertiesTest {

    @Test
    void defaults() {
        RecoveryProperties p = Bound.bind("product.recovery", RecoveryProperties.class, Map.of());
        assertThat(p).isEqualTo(new RecoveryProperties(true, "", Duration.ofSeconds(30), Duration.ofSeconds(30),
                Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMinutes(1), 1000, 20, Duration.ofSeconds(60)));
        assertThat(Bound.bind("product", ProductStreamsProperties.class, Map.of()).list()).isEmpty();
    }

    @Test
    void bindsTheDurationKeys() {
        RecoveryProperties p = Bound.bind("product.recovery", RecoveryProperties.class, Map.of(
                "product.recovery.enabled", "false", "product.recovery.instance-id", "node-a",
                "product.recovery.lease-ttl", "PT5S", "product.recovery.interval", "PT10M",
                "product.recovery.gap-grace", "100ms", "product.recovery.initial-backoff", "PT0.1S",
                "product.recovery.max-backoff", "PT0.4S", "product.recovery.page-limit", "7",
                "product.recovery.max-pages-per-cycle", "2", "product.recovery.resolver-lease-ttl", "90s"));
        assertThat(p).isEqualTo(new RecoveryProperties(false, "node-a", Duration.ofSeconds(5),
                Duration.ofMinutes(10), Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(400), 7, 2,
                Duration.ofSeconds(90)));
        assertThat(Bound.bind("product", ProductStreamsProperties.class, Map.of("product.streams", "acme/a, acme/b"))
                .list()).containsExactly(new StreamId("acme", "a"), new StreamId("acme", "b"));
    }

    @Test
    void refusesValuesThatWouldBreakTheWorker() {
        assertThatThrownBy(() -> Bound.bind("product.recovery", RecoveryProperties.class,
                Map.of("product.recovery.interval", "PT0S")))
                .rootCause().hasMessageContaining("product.recovery.interval");
        assertThatThrownBy(() -> Bound.bind("product.recovery", RecoveryProperties.class,
                Map.of("product.recovery.max-backoff", "10ms")))
                .rootCause().hasMessageContaining("max-backoff");
        assertThatThrownBy(() -> Bound.bind("product", ProductStreamsProperties.class,
                Map.of("product.streams", "acme")))
                .rootCause().hasMessageContaining("tenant/catalog");
    }
}
