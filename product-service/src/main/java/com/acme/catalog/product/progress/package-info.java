/**
 * Durable progress reported to the resolver (docs/design.md step 8; the resolver prunes by it, step 10): only positions
 * whose transaction committed are offered; per stream reports never go down, coalesce, keep a minimum interval and
 * are retried with capped backoff; a lost report only makes the resolver retain more. Settings:
 * {@code ProgressProperties} ({@code product.progress.*}).
 */
package com.acme.catalog.product.progress;
