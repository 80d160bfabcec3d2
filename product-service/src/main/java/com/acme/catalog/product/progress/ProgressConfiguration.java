package com.acme.catalog.product.progress;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@code product.progress.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ProgressProperties.class)
class ProgressConfiguration {
}
