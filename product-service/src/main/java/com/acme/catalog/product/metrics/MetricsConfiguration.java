package com.acme.catalog.product.metrics;

import com.acme.catalog.platform.metrics.TenantTags;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Binds {@code product.metrics.*} and makes the {@link TenantTags} every per-instance meter uses. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(MetricsProperties.class)
class MetricsConfiguration {

    @Bean
    TenantTags tenantTags(MetricsProperties properties) {
        return TenantTags.from(properties.perTenant());
    }
}
