package com.acme.catalog.resolver.evidence;

import java.util.regex.Pattern;

import com.acme.catalog.platform.web.BodyLimitFilter;
import com.acme.catalog.resolver.export.ExportProperties;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binds {@code evidence.*}, refuses a key prefix that overlaps the exports' (evidence is private: the product
 * reads exports, never evidence), and gives the intake route its own body cap instead of the general one.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EvidenceProperties.class)
class EvidenceConfiguration {

    /** The intake route exactly; the tenant part is checked by the controller. */
    static final Pattern INTAKE_ROUTE = Pattern.compile("/v1/tenants/[^/]+/evidence");

    EvidenceConfiguration(EvidenceProperties evidence, ExportProperties exports) {
        if (evidence.overlaps(exports.keyPrefix())) {
            throw new IllegalStateException("evidence.key-prefix '" + evidence.keyPrefix()
                    + "' overlaps export.key-prefix '" + exports.keyPrefix() + "': evidence must stay private");
        }
    }

    @Bean
    BodyLimitFilter.RouteLimit evidenceIntakeLimit(EvidenceProperties evidence) {
        return new BodyLimitFilter.RouteLimit(INTAKE_ROUTE, evidence.maxBytes().toBytes());
    }
}
