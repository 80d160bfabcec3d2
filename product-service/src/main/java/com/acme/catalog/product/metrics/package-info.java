/**
 * How the product's meters are shaped so that an operator's Prometheus holds them with thousands of streams:
 * counters and histograms per instance (optionally per tenant, {@link com.acme.catalog.platform.metrics.TenantTags}), per-stream series only where
 * an operator acts per stream (docs/metrics.md). Settings: {@code MetricsProperties} ({@code product.metrics.*}).
 */
package com.acme.catalog.product.metrics;
