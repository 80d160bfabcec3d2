/**
 * Public catalog reads without a token: an item as its latest public release names it, and full-text search. Each
 * read resolves the serving pointer and reads that generation in one read-only snapshot, so readers never see a mix
 * across a cutover (docs/design.md step 7); a generation of an older epoch is refused or served with a warning (step
 * 9). Settings: {@code ServingProperties} ({@code product.serving.*}) and {@code product.epochs.stale-serving}.
 */
package com.acme.catalog.product.serving;
