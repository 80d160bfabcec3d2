package com.acme.catalog.product.completeness;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.boot.convert.DurationUnit;

/**
 * {@code product.completeness.*}: the completeness status (docs/rebuild.md "Completeness"; docs/configuration.md
 * lists the keys).
 *
 * @param refresh        how often {@code product_completeness_state} is recomputed for every known stream
 * @param heartbeatStale a running rebuild whose row was not updated for this long has no live worker
 */
@ConfigurationProperties("product.completeness")
record CompletenessProperties(
        @Name("refresh-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("10000") Duration refresh,
        @Name("heartbeat-stale-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("60000") Duration heartbeatStale) {

    CompletenessProperties {
        positive(refresh, "refresh-ms");
        positive(heartbeatStale, "heartbeat-stale-ms");
    }

    private static void positive(Duration d, String key) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("product.completeness." + key + " must be positive, not "
                    + d.toMillis());
        }
    }
}
