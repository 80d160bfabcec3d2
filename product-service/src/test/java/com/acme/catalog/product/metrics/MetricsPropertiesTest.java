package com.acme.catalog.product.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.metrics.*}: per instance unless asked. */
class MetricsPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.metrics", MetricsProperties.class, Map.of()))
                .isEqualTo(new MetricsProperties(false));
        assertThat(Bound.bind("product.metrics", MetricsProperties.class, Map.of("product.metrics.per-tenant", "true"))).isEqualTo(new MetricsProperties(true));
        assertThat(new MetricsConfiguration().tenantTags(new MetricsProperties(true)).isPerTenant()).isTrue();
        assertThat(new MetricsConfiguration().tenantTags(new MetricsProperties(false)).isPerTenant()).isFalse();
    }
}
