package com.acme.catalog.resolver.stream;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CoalescingProperties.class)
class StreamConfiguration {
}
