/**
 * How both services tag meters that count or time the work of many streams: per instance, or per tenant behind a
 * setting, never per stream (docs/metrics.md).
 */
package com.acme.catalog.platform.metrics;
