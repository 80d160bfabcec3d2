package com.acme.catalog.resolver.retention;

import java.util.Comparator;
import java.util.Objects;

/**
 * One thing that holds retention of a stream's epoch below its cursor, as {@code blockedBy} reports it.
 * {@code position} is, by kind: {@code consumer}, the consumer's durable position; {@code lease}, the lease's pin
 * (nothing above either may be pruned); {@code unpublished}, the first event not yet published ({@code id} is its
 * event id); {@code gap}, the first missing position ({@code id} is null). {@code ownedBy}: the token identity
 * that registered the consumer or took the lease (never shown; it decides who sees the id), else null.
 */
record Blocker(Kind kind, String id, long position, String ownedBy) {

    /** Kinds in the order they are listed at equal positions; wire names are lower case. */
    enum Kind {
        CONSUMER, LEASE, UNPUBLISHED, GAP;

        String wire() {
            return name().toLowerCase();
        }
    }

    static final Comparator<Blocker> ORDER = Comparator.comparingLong(Blocker::position)
            .thenComparing(Blocker::kind)
            .thenComparing(b -> b.id() == null ? "" : b.id());

    Blocker {
        Objects.requireNonNull(kind, "kind");
    }

    Blocker(Kind kind, String id, long position) {
        this(kind, id, position, null);
    }
}
