package com.acme.catalog.product.epoch;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Binds {@code product.epochs.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EpochProperties.class)
class EpochConfiguration {
}
