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

    long blockedCount(Blocker.Kind kind) {
        return blockedBy.stream().filter(b -> b.kind() == kind).count();
    }

    /** A registered consumer of the stream (any epoch); lag is against the cursor of its own epoch. */
    record ConsumerView(String consumerId, long epoch, long durablePosition, long lagEvents, String deliveryUrl,
            Instant registeredAt, Instant progressAt) {
    }

    /** A live lease of the epoch. */
    record LeaseView(UUID leaseId, String owner, long pin, Instant createdAt, Instant expiresAt) {
    }
}
