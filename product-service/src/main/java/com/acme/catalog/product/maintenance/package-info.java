/**
 * The product's maintenance mode (docs/design.md step 9: consumers and public serving pause while a restore runs): the
 * shared switch and {@code /v1/admin/maintenance} over the product's database; public reads answer 503
 * {@code MAINTENANCE}, deliveries and the recovery worker's catch-up wait at the serving lock.
 */
package com.acme.catalog.product.maintenance;
