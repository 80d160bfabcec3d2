package com.acme.catalog.resolver.stream;

import java.util.List;
import java.util.Objects;

import com.acme.catalog.resolver.idempotency.IdempotencyKey;

/**
 * One logical transaction as a client sent it: its changes and, when the request carried one, its idempotency key.
 *
 * @param key null when the write is not keyed
 */
public record LogicalWrite(List<Change> changes, IdempotencyKey key) {

    public LogicalWrite {
        Objects.requireNonNull(changes, "changes");
    }

    /** A write without an idempotency key. */
    public static LogicalWrite unkeyed(List<Change> changes) {
        return new LogicalWrite(changes, null);
    }
}
