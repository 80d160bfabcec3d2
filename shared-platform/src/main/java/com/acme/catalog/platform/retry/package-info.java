/**
 * Exponential backoff to a cap: the policy (for callers that count failures elsewhere, as the relay does in its
 * delivery rows) and a per-job backoff that counts in memory (the product's recovery worker). No docs/design.md step of
 * its own; failed deliveries (step 8) and recovery cycles (section 6) retry with it.
 */
package com.acme.catalog.platform.retry;
