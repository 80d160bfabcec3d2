package com.acme.catalog.resolver.bootstrap;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@link ReadinessProperties}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReadinessProperties.class)
class ReadinessConfiguration {
}
