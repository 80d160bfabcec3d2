package com.acme.catalog.contracts.stream;

/**
 * {@code GET /v1/streams/{tenant}/{catalog}/cursor}: the committed position of the stream's open epoch, the chain
 * digest at it (64 {@code 0} at position 0) and the position through which the outbox is pruned.
 */
public record CursorView(long epoch, long position, String chainDigest, long prunedThrough) {
}
