package com.acme.catalog.resolver.bootstrap;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code bootstrap.ready.*}: where an import that waits until it is served ({@code waitReady}, {@code --wait-ready})
 * asks the product (docs/bootstrap-import.md "Ready means served").
 *
 * @param productUrl   the product's base URL ({@code BOOTSTRAP_PRODUCT_URL}); empty: waiting is refused (400)
 * @param productToken an operator token of the product ({@code BOOTSTRAP_PRODUCT_TOKEN})
 * @param timeout      how long the import waits after its last commit before it answers 504 {@code PRODUCT_NOT_READY}
 * @param pollInterval how often it asks the product meanwhile
 */
@ConfigurationProperties("bootstrap.ready")
record ReadinessProperties(@DefaultValue("") String productUrl, @DefaultValue("") String productToken,
        @DefaultValue("PT10M") Duration timeout, @DefaultValue("PT0.5S") Duration pollInterval) {

    ReadinessProperties {
        if (timeout.isNegative() || timeout.isZero() || pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException("bootstrap.ready.timeout and poll-interval must be positive");
        }
        if (!productUrl.isEmpty() && !productUrl.startsWith("http://") && !productUrl.startsWith("https://")) {
            throw new IllegalArgumentException("bootstrap.ready.product-url must be an http(s) URL, not " + productUrl);
        }
    }

    boolean configured() {
        return !productUrl.isEmpty();
    }
}
