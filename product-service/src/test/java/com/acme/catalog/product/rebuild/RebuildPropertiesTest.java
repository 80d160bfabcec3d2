package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

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
                "product.rebuild.maintenance-work-mem", "64MB", "product.rebuild.test-pause.LOADING", "PT3S"));
        assertThat(set.leaseTtl()).isEqualTo(Duration.ofSeconds(90));
        assertThat(set.pageLimit()).isEqualTo(200);
        assertThat(set.maxAttempts()).isEqualTo(4);
        assertThat(set.pollInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(set.workers()).isEqualTo(1);
        assertThat(set.maintenanceWorkMem()).isEqualTo("64MB");
        assertThat(set.testPause()).containsExactly(Map.entry(RebuildPhase.LOADING, Duration.ofMillis(3000)));

        RebuildProperties defaults = bind(Map.of("product.rebuild.unrelated", "x"));
        assertThat(defaults.leaseTtl()).isEqualTo(Duration.ofSeconds(120));
        assertThat(defaults.pageLimit()).isEqualTo(1000);
        assertThat(defaults.maxAttempts()).isEqualTo(3);
        assertThat(defaults.pollInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(defaults.workers()).isEqualTo(2);
        assertThat(defaults.maintenanceWorkMem()).isEqualTo("256MB");
        assertThat(defaults.testPause()).isEmpty();
    }

    private static RebuildProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("product.rebuild",
                RebuildProperties.class);
    }
}
