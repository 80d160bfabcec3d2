/**
 * The read-only completeness status (docs/design.md §7): per stream verified-through, last successful verification,
 * observed source boundary and CURRENT / CATCHING_UP / RETRYING / BLOCKED with a reason, derived from the serving
 * cursor, the latest rebuild and the recovery worker's last finding; worker liveness is reported apart and is no
 * part of readiness ({@code GET /v1/projection-completeness}, {@code product_completeness_state}). The fleet's: every
 * stream counted by state and epoch with a page of those not CURRENT ({@code FleetCompleteness}, the same route
 * without a stream) and {@code product_streams{state}}, refreshed by {@code CompletenessScheduler}. Settings:
 * {@code CompletenessProperties} ({@code product.completeness.*}).
 */
package com.acme.catalog.product.completeness;
