package com.acme.catalog.product.resolver;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@link ResolverClientProperties}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ResolverClientProperties.class)
class ResolverClientConfiguration {
}
