/**
 * Retention control: consumers and their durable progress, leases (owner + expiry in database time) pinning a
 * position, the retention-control lock shared with the pruner and registration, and the pruner itself.
 * docs/design.md steps 2 (pin retention), 8 (progress reports, monotonic per stream and epoch) and 10 (prune only a
 * contiguous published prefix below every pin and consumer).
 */
package com.acme.catalog.resolver.retention;
