package com.acme.catalog.product.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.metrics.*}: the shape of the per-instance meters (docs/metrics.md; docs/configuration.md lists the
 * keys).
 *
 * @param perTenant whether the counters that count the work of many streams ({@code
 *                  product_old_epoch_deliveries_total}, the rebuild and chain-divergence counters) carry a
 *                  {@code tenant} tag, one per tenant instead of one per instance; never a {@code catalog} tag
 */
@ConfigurationProperties("product.metrics")
record MetricsProperties(@DefaultValue("false") boolean perTenant) {
}
