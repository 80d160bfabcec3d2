package com.acme.catalog.contracts.retention;

/**
 * {@code PUT /v1/retention/consumers/{consumerId}/progress} answer: the consumer's durable position now; a report
 * lower than it leaves it unchanged.
 */
public record ProgressRecorded(long durablePosition) {
}
