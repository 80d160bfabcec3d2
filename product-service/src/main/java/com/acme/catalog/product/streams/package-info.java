/**
 * Which streams the product serves ({@code PRODUCT_STREAMS}: named streams and subscriptions by pattern), shared by the
 * inbox, the recovery worker and the rebuild and owned by none of them. docs/design.md §9 (many streams).
 */
package com.acme.catalog.product.streams;
