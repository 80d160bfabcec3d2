package com.acme.catalog.resolver.stream;

import java.util.UUID;

/** What one committed logical transaction got: its positions, its id, and the last revision it wrote. */
public record WriteResult(long epoch, long firstPosition, long lastPosition, UUID transactionId, int revision) {
}
