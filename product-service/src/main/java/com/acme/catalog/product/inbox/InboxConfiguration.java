package com.acme.catalog.product.inbox;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.ObjectMapper;

@Configuration(proxyBeanMethods = false)
class InboxConfiguration {

    @Bean
    DeliveryParser deliveryParser(ObjectMapper json, @Value("${product.inbox.max-events:1000}") int maxEvents) {
        return new DeliveryParser(json, maxEvents);
    }
}
