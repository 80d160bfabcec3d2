/**
 * Snapshot exports and the catch-up endpoint: one {@code REPEATABLE READ} snapshot of accepted state, checksummed
 * objects and a manifest in the object store, the lease pin moved to the snapshot's cursor, and bounded pages of
 * retained events after it with the chain digest at both ends; also the state checksum. docs/design.md steps 3 (one
 * snapshot), 4 (publish export) and 6 (retained events; 410 for a stale cursor, a dead lease or another epoch).
 */
package com.acme.catalog.resolver.export;
