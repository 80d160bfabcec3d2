package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

/**
 * Retention of one (stream, epoch) in one database snapshot.
 *
 * @param cursor           the epoch's committed position W
 * @param prunedThrough    P
 * @param retainedEvents   outbox rows above P
 * @param blockedBy        what holds retention below W, by position (see {@link Blocker})
 * @param ripeThrough      end of the gapless prefix above P that is published and older than min-age
 * @param pruneableThrough how far the next prune may go: min(consumers, live leases, ripeThrough)
 * @param observedAt       this instance's clock when read (informational only)
 */
record RetentionStatus(StreamId stream, long epoch, long cursor, long prunedThrough, long retainedEvents,
        List<Blocker> blockedBy, List<ConsumerView> consumers, List<LeaseView> leases, Duration minAge,
        long ripeThrough, long pruneableThrough, Instant observedAt) {

    /**
     * What a consumer-role token is shown: only the consumers and leases its identity registered or took; a
     * consumer or lease of another token that holds retention stays in {@code blockedBy} (kind and position, so
     * the holdup is visible) without its id.
     */
    RetentionStatus seenBy(String identity) {
        List<Blocker> blockers = blockedBy.stream()
                .map(b -> b.ownedBy() == null || b.ownedBy().equals(identity) ? b
                        : new Blocker(b.kind(), null, b.position(), null))
                .toList();
        return new RetentionStatus(stream, epoch, cursor, prunedThrough, retainedEvents, blockers,
                consumers.stream().filter(c -> identity.equals(c.ownedBy())).toList(),
                leases.stream().filter(l -> identity.equals(l.ownedBy())).toList(), minAge, ripeThrough,
                pruneableThrough, observedAt);
    }

    long blockedCount(Blocker.Kind kind) {
        return blockedBy.stream().filter(b -> b.kind() == kind).count();
    }

    /** A registered consumer of the stream (any epoch); lag is against the cursor of its own epoch. */
    record ConsumerView(String consumerId, long epoch, long durablePosition, long lagEvents, String deliveryUrl,
            Instant registeredAt, Instant progressAt, String ownedBy) {
    }

    /** A live lease of the epoch. */
    record LeaseView(UUID leaseId, String owner, long pin, Instant createdAt, Instant expiresAt, String ownedBy) {
    }
}
