package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The rebuild's settings: the Duration keys (ISO or with a unit) and the defaults they always had. */
class RebuildPropertiesTest {

    @Test
    void bindsTheKeysWithTheOldDefaults() {
        RebuildProperties set = bind(Map.of("product.rebuild.lease-ttl", "PT90S",
                "product.rebuild.page-limit", "200", "product.rebuild.max-attempts", "4",
                "product.rebuild.poll-interval", "50ms", "product.rebuild.workers", "1",
                "product.rebuild.maintenance-work-mem", "64MB", "product.rebuild.test-pause.LOADING", "PT3S",
                "product.rebuild.retry-budget", "PT5M", "product.rebuild.retry-initial-delay", "PT0.5S",
                "product.rebuild.retry-max-delay", "PT4S"));
        assertThat(set.leaseTtl()).isEqualTo(Duration.ofSeconds(90));
        assertThat(set.pageLimit()).isEqualTo(200);
        assertThat(set.maxAttempts()).as("deprecated, bound so that setting it does not fail").isEqualTo(4);
        assertThat(set.retryBudget()).isEqualTo(Duration.ofMinutes(5));
        assertThat(set.retryDelay(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(set.retryDelay(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(set.retryDelay(4)).isEqualTo(Duration.ofSeconds(4));
        assertThat(set.retryDelay(40)).as("capped").isEqualTo(Duration.ofSeconds(4));
        assertThat(set.pollInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(set.workers()).isEqualTo(1);
        assertThat(set.maintenanceWorkMem()).isEqualTo("64MB");
        assertThat(set.testPause()).containsExactly(Map.entry(RebuildPhase.LOADING, Duration.ofMillis(3000)));

        RebuildProperties defaults = bind(Map.of("product.rebuild.unrelated", "x"));
        assertThat(defaults.leaseTtl()).isEqualTo(Duration.ofSeconds(120));
        assertThat(defaults.pageLimit()).isEqualTo(1000);
        assertThat(defaults.maxAttempts()).isNull();
        assertThat(defaults.retryBudget()).isEqualTo(Duration.ofMinutes(30));
        assertThat(defaults.retryInitialDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.retryMaxDelay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(defaults.pollInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(defaults.workers()).isEqualTo(2);
        assertThat(defaults.maintenanceWorkMem()).isEqualTo("256MB");
        assertThat(defaults.testPause()).isEmpty();
    }

    @Test
    void theRebuildConcurrencyIsAtLeastOne() {
        assertThat(bind(Map.of("product.rebuild.workers", "8")).workers()).isEqualTo(8);
        assertThatThrownBy(() -> bind(Map.of("product.rebuild.workers", "0"))).rootCause()
                .hasMessageContaining("product.rebuild.workers must be at least 1");
    }

    private static RebuildProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("product.rebuild",
                RebuildProperties.class);
    }
}
