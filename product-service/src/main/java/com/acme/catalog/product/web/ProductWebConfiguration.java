package com.acme.catalog.product.web;

import java.util.List;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.platform.web.BodyLimitFilter;
import com.acme.catalog.platform.web.BodyLimitProperties;
import com.acme.catalog.platform.web.SharedWebConfiguration.PublicPaths;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Public catalog reads need no token; the inbox takes any delivery the resolver's limits allow. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(BodyLimitProperties.class) // also registered by SharedWebConfiguration: bound once
class ProductWebConfiguration {

    static final Pattern INBOX_ROUTE = Pattern.compile("/v1/inbox/events");

    @Bean
    PublicPaths productPublicPaths() {
        return new PublicPaths(List.of("/v1/catalog/**"));
    }

    /**
     * The inbox's cap is never below {@link JsonLimits#MAX_DELIVERY_BYTES}: one event of the largest wire the resolver
     * accepts always fits in a delivery, so no accepted write can be refused here (and stall its stream).
     */
    @Bean
    BodyLimitFilter.RouteLimit inboxLimit(BodyLimitProperties limits) {
        return new BodyLimitFilter.RouteLimit(INBOX_ROUTE,
                Math.max(limits.maxBodyBytes(), JsonLimits.MAX_DELIVERY_BYTES));
    }
}
