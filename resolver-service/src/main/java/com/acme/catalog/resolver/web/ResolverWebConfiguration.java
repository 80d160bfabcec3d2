package com.acme.catalog.resolver.web;

import java.util.List;
import java.util.regex.Pattern;

import com.acme.catalog.platform.web.BodyLimitFilter;
import com.acme.catalog.platform.web.SharedWebConfiguration.PublicPaths;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The resolver has no public endpoints besides health and metrics; its bulk import has a body cap of its own. */
@Configuration(proxyBeanMethods = false)
class ResolverWebConfiguration {

    /** The bootstrap import route exactly (tenant and catalog are checked by the controller). */
    static final Pattern IMPORT_ROUTE = Pattern.compile("/v1/streams/[^/]+/[^/]+/bootstrap-import");

    @Bean
    PublicPaths resolverPublicPaths() {
        return new PublicPaths(List.of());
    }

    /** {@code http.max-import-bytes} on the import route only; every other path keeps {@code http.max-body-bytes}. */
    @Bean
    BodyLimitFilter.RouteLimit bootstrapImportLimit(@Value("${http.max-import-bytes:268435456}") long maxImport) {
        return new BodyLimitFilter.RouteLimit(IMPORT_ROUTE, maxImport);
    }
}
