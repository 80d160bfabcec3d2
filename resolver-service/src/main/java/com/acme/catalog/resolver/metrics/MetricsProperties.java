package com.acme.catalog.resolver.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code resolver.metrics.*}: the shape of the per-instance meters (docs/metrics.md).
 *
 * @param perTenant whether the write and export meters ({@code resolver_write_seconds}, {@code resolver_writes_total},
 *                  {@code resolver_export_seconds}, ...) carry a {@code tenant} tag, one set per tenant instead of
 *                  one per instance; never a {@code catalog} tag
 */
@ConfigurationProperties("resolver.metrics")
record MetricsProperties(@DefaultValue("false") boolean perTenant) {
}
