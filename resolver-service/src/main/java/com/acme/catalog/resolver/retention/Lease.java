package com.acme.catalog.resolver.retention;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

/**
 * A live rebuild lease as of the moment it was read: nothing of {@code stream}'s outbox in {@code epoch} above
 * {@code pin} is pruned while it stays alive. {@code expiresAt} is database time.
 */
public record Lease(UUID leaseId, StreamId stream, long epoch, long pin, String owner, Instant expiresAt) {

    public Lease {
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (epoch < 1 || pin < 0) {
            throw new IllegalArgumentException("epoch must be >= 1 and pin >= 0");
        }
    }
}
