package com.acme.catalog.product.serving;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.serving.*}: public catalog reads (docs/product-projections.md; docs/configuration.md lists the
 * keys). What a stale generation answers is {@code product.epochs.stale-serving} ({@code EpochProperties}).
 *
 * @param maxSearchLimit the largest {@code limit} a search honours (a larger one is capped)
 */
@ConfigurationProperties("product.serving")
record ServingProperties(@DefaultValue("100") int maxSearchLimit) {

    ServingProperties {
        if (maxSearchLimit < 1) {
            throw new IllegalArgumentException("product.serving.max-search-limit must be at least 1, not "
                    + maxSearchLimit);
        }
    }
}
