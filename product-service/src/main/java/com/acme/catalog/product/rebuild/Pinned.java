package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

/**
 * {@link LeaseStep}'s result: the epoch the attempt rebuilds and the resolver lease that pins its retention, kept
 * alive by {@code keeper} until {@link RetireStep} releases it (or {@link RetireStep#abandon} does).
 */
record Pinned(Started started, long epoch, String leaseId, LeaseKeeper keeper) implements Reached {

    Pinned {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(keeper, "keeper");
    }

    UUID id() {
        return started.id();
    }

    StreamId stream() {
        return started.stream();
    }

    @Override
    public Optional<Pinned> lease() {
        return Optional.of(this);
    }
}
