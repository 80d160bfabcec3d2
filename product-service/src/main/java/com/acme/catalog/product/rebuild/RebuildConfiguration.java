package com.acme.catalog.product.rebuild;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Binds {@link RebuildProperties}; the probe does nothing unless a test pause is set. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RebuildProperties.class)
class RebuildConfiguration {

    @Bean
    RebuildProbe rebuildProbe(RebuildProperties properties) {
        return properties.testPause().isEmpty() ? RebuildProbe.NONE : new TestPauses(properties.testPause());
    }
}
