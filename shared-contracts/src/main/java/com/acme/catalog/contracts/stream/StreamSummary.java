package com.acme.catalog.contracts.stream;

/**
 * One stream of {@code GET /v1/streams}: its open epoch, the committed position there ({@code cursor}), the chain
 * digest at it (64 {@code 0} at position 0) and the position through which its outbox is pruned.
 */
public record StreamSummary(String tenant, String catalog, long epoch, long cursor, String chainDigest,
        long prunedThrough) {
}
