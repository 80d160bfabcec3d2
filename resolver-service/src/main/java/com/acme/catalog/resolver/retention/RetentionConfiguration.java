package com.acme.catalog.resolver.retention;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@code retention.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RetentionProperties.class)
class RetentionConfiguration {
}
