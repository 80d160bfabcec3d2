/**
 * Per-stream counters the contract names, registered for every known stream shortly after start and then
 * periodically, before their first increment, so an alert on {@code increase(…)} sees the first event
 * ({@code product_old_epoch_deliveries_total}, docs/design.md step 9). Settings: {@code MetricsProperties}
 * ({@code product.metrics.*}).
 */
package com.acme.catalog.product.metrics;
