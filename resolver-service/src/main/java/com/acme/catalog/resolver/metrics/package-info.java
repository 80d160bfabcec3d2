/**
 * How the resolver's meters are shaped so that an operator's Prometheus holds them with thousands of streams:
 * latency histograms and work counters per instance (optionally per tenant, {@link com.acme.catalog.platform.metrics.TenantTags}), per-stream series
 * only where an operator acts per stream (docs/metrics.md).
 */
package com.acme.catalog.resolver.metrics;
