/**
 * Epochs on the product side (docs/design.md step 9): each stream's current epoch as learnt from the resolver, only
 * ever raised and shared by every instance through {@code stream_epoch}; events of an older epoch are recorded in
 * {@code old_epoch_delivery}, counted and terminally ignored ({@code GET /v1/audit/old-epoch-deliveries}).
 * Settings: {@code EpochProperties} ({@code product.epochs.*}).
 */
package com.acme.catalog.product.epoch;
