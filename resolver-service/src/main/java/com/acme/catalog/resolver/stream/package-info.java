/**
 * Writes: the per-stream cursor lock, gapless positions and chain digests, accepted-state rows and revisions,
 * outbox rows, and the coalescing of concurrent singleton writes of a stream into one physical transaction
 * ({@code WriteCoalescer}, {@code ChunkWriter}) whose statements {@code BatchWriteRepository} assembles as data
 * (shared-platform's {@code BoundSql}, {@code UnnestColumns}). docs/design.md step 1 (serialized writes; committed positions are exactly
 * 1..W with no gap, in commit order).
 */
package com.acme.catalog.resolver.stream;
