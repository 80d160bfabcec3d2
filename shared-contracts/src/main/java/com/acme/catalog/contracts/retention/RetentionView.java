package com.acme.catalog.contracts.retention;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /v1/retention/streams/{tenant}/{catalog}?epoch=}: retention of one (stream, epoch) in one snapshot,
 * The contract's names first, additions after. Every field is present; an unknown time is null.
 *
 * @param cursor           the epoch's committed position W
 * @param prunedThrough    P
 * @param retainedEvents   outbox rows above P
 * @param blockedBy        what holds retention below W, by position
 * @param minAge           the minimum age of a prunable event, ISO-8601 ({@code PT1H})
 * @param ripeThrough      end of the gapless prefix above P that is published and older than min-age
 * @param pruneableThrough how far the next prune may go
 * @param observedAt       the resolver's clock when read (informational only)
 */
public record RetentionView(long epoch, long cursor, long prunedThrough, long retainedEvents,
        List<RetentionBlocker> blockedBy, List<Consumer> consumers, List<Lease> leases, String tenant,
        String catalog, String minAge, long ripeThrough, long pruneableThrough, Instant observedAt) {

    public RetentionView {
        blockedBy = List.copyOf(blockedBy);
        consumers = List.copyOf(consumers);
        leases = List.copyOf(leases);
    }

    /** A registered consumer of the stream (any epoch); lag is against the cursor of its own epoch. */
    public record Consumer(String consumerId, long epoch, long durablePosition, long lagEvents, String deliveryUrl,
            Instant registeredAt, Instant progressAt) {
    }

    /** A live lease of the epoch. */
    public record Lease(UUID leaseId, String owner, long pin, Instant createdAt, Instant expiresAt) {
    }
}
