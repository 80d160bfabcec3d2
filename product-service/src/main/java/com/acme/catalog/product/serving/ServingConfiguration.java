package com.acme.catalog.product.serving;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@code product.serving.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ServingProperties.class)
class ServingConfiguration {
}
