package com.acme.catalog.product.completeness;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;

/**
 * {@code product.completeness.*}: the completeness status (docs/rebuild.md "Completeness"; docs/configuration.md
 * lists the keys, and the deprecated {@code *-ms} ones they replace).
 *
 * @param refresh        how often {@code product_completeness_state} is recomputed for every known stream and
 *                       {@code product_streams{state}} counts them
 * @param heartbeatStale a running rebuild whose row was not updated for this long has no live worker
 */
@ConfigurationProperties("product.completeness")
record CompletenessProperties(
        @Name("refresh-interval") @DefaultValue("PT10S") Duration refresh,
        @Name("heartbeat-stale-after") @DefaultValue("PT1M") Duration heartbeatStale) {

    CompletenessProperties {
        positive(refresh, "refresh-interval");
        positive(heartbeatStale, "heartbeat-stale-after");
    }

    private static void positive(Duration d, String key) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("product.completeness." + key + " must be positive, not " + d);
        }
    }
}
