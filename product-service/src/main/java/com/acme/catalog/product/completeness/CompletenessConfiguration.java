package com.acme.catalog.product.completeness;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@code product.completeness.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CompletenessProperties.class)
class CompletenessConfiguration {
}
