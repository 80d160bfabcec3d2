/**
 * The live consumer of the relay's deliveries ({@code POST /v1/inbox/events}), docs/design.md step 8: one delivery of
 * one stream is one transaction that locks the serving generation's cursor, verifies the hash chain (§6), dedupes by
 * position, applies in revision order with dependency parking and saves the contiguous processed position with the
 * inbox rows; metrics move and progress is offered only after that commit. {@code EventApplier} is the apply code
 * the recovery worker's catch-up shares (step 7); {@code StreamAdmission} decides which streams a first delivery
 * may start; events of an older epoch are audited and ignored (step 9, with {@code epoch}). Settings:
 * {@code InboxProperties} ({@code product.inbox.*}).
 */
package com.acme.catalog.product.inbox;
