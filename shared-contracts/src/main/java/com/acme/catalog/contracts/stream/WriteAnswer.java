package com.acme.catalog.contracts.stream;

import java.util.UUID;

/**
 * The answer of a single write ({@code PUT …/items|mappings|policies|releases/{id}}, {@code DELETE …/items/{id}}):
 * the position its event took in the epoch, its logical transaction, and the aggregate's new revision.
 */
public record WriteAnswer(long epoch, long position, UUID transactionId, int revision) {
}
