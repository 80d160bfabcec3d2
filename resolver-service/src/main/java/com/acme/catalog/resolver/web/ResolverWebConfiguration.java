package com.acme.catalog.resolver.web;

import java.util.List;

import com.acme.catalog.contracts.web.SharedWebConfiguration.PublicPaths;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The resolver has no public endpoints besides health and metrics. */
@Configuration(proxyBeanMethods = false)
class ResolverWebConfiguration {

    @Bean
    PublicPaths resolverPublicPaths() {
        return new PublicPaths(List.of());
    }
}
