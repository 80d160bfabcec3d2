package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The rebuild's settings bind from the keys (and plain-number values) operators and tests have always set. */
class RebuildPropertiesTest {

    @Test
    void bindsTheKeysInTheirUnitsWithTheOldDefaults() {
        RebuildProperties set = bind(Map.of("product.rebuild.lease-ttl-seconds", "90",
                "product.rebuild.page-limit", "200", "product.rebuild.max-attempts", "4",
                "product.rebuild.poll-ms", "50", "product.rebuild.workers", "1",
                "product.rebuild.maintenance-work-mem", "64MB", "product.rebuild.test-pause-ms.LOADING", "3000"));
        assertThat(set.leaseTtlSeconds()).isEqualTo(Duration.ofSeconds(90));
        assertThat(set.pageLimit()).isEqualTo(200);
        assertThat(set.maxAttempts()).isEqualTo(4);
        assertThat(set.pollMs()).isEqualTo(Duration.ofMillis(50));
        assertThat(set.workers()).isEqualTo(1);
        assertThat(set.maintenanceWorkMem()).isEqualTo("64MB");
        assertThat(set.testPauseMs()).containsExactly(Map.entry(RebuildPhase.LOADING, Duration.ofMillis(3000)));

        RebuildProperties defaults = bind(Map.of("product.rebuild.unrelated", "x"));
        assertThat(defaults.leaseTtlSeconds()).isEqualTo(Duration.ofSeconds(120));
        assertThat(defaults.pageLimit()).isEqualTo(1000);
        assertThat(defaults.maxAttempts()).isEqualTo(3);
        assertThat(defaults.pollMs()).isEqualTo(Duration.ofMillis(200));
        assertThat(defaults.workers()).isEqualTo(2);
        assertThat(defaults.maintenanceWorkMem()).isEqualTo("256MB");
        assertThat(defaults.testPauseMs()).isEmpty();
    }

    private static RebuildProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("product.rebuild",
                RebuildProperties.class);
    }
}
