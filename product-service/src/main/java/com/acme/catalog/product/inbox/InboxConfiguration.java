package com.acme.catalog.product.inbox;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.ObjectMapper;

/** Binds {@code product.inbox.*}; the delivery parser is also used by the recovery worker's catch-up. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(InboxProperties.class)
class InboxConfiguration {

    @Bean
    DeliveryParser deliveryParser(ObjectMapper json, InboxProperties properties) {
        return new DeliveryParser(json, properties.maxEvents());
    }
}
