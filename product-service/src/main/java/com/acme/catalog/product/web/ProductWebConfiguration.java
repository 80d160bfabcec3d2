package com.acme.catalog.product.web;

import java.util.List;

import com.acme.catalog.contracts.web.SharedWebConfiguration.PublicPaths;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Public catalog reads need no token. */
@Configuration(proxyBeanMethods = false)
class ProductWebConfiguration {

    @Bean
    PublicPaths productPublicPaths() {
        return new PublicPaths(List.of("/v1/catalog/**"));
    }
}
