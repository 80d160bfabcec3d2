/**
 * Idempotency keys of writes (docs/writes.md "Idempotent writes"): the {@code Idempotency-Key}
 * header as a value ({@link com.acme.catalog.resolver.idempotency.IdempotencyKey}), with the fingerprint of the
 * request it came with; the claim of a key by writes that take no cursor lock
 * ({@link com.acme.catalog.resolver.idempotency.KeyClaims}); the key window and the pruner that deletes keys older
 * than it. The cursor-locked writes look their keys up under the cursor lock in {@code stream/}. Depends on no other
 * package of the service.
 */
package com.acme.catalog.resolver.idempotency;
