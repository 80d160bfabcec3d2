package com.acme.catalog.contracts.stream;

import java.util.UUID;

/**
 * The answer of {@code POST /v1/streams/{tenant}/{catalog}/transactions}: the contiguous positions its events took
 * in the epoch, all committed together.
 */
public record TransactionAnswer(long epoch, long firstPosition, long lastPosition, UUID transactionId) {
}
