package com.acme.catalog.product.inbox;

import java.util.Map;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.product.inbox.InboxRepository.StartPoint;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.IntegrationEvent;

/**
 * Events of a delivery at or below the verified chain position are duplicates only if they carry the digest the
 * generation's chain has there; anything else is 422 {@code CHAIN_BROKEN}. Above the generation's start the inbox
 * (or a parked row) records the digest of every position. At the start (the export's W) the generation keeps the
 * digest it was loaded with, and below it a position is proven by the delivery itself: when the delivery holds
 * every position from it up to the start, each digest must chain into the next event's up to the known one. A
 * position below the start that the delivery does not link up to it cannot be checked (nothing of the chain before
 * the export is kept) and stays a duplicate on trust, as does anything of a generation loaded before the start's
 * digest was recorded.
 */
final class RedeliveryCheck {

    private final InboxRepository inbox;
    private final GenerationCursor locked;

    RedeliveryCheck(InboxRepository inbox, GenerationCursor locked) {
        this.inbox = inbox;
        this.locked = locked;
    }

    /** @throws ChainBrokenException for the first position whose digest is not the generation's */
    void verify(Map<Long, IntegrationEvent> belowChain) {
        if (belowChain.isEmpty()) {
            return;
        }
        long generation = locked.generationId();
        Map<Long, String> recorded = inbox.knownDigests(generation, belowChain.keySet().toArray(Long[]::new));
        boolean unrecorded = false;
        for (IntegrationEvent e : belowChain.values()) {
            String known = recorded.get(e.position());
            if (known == null) {
                unrecorded = true;
            } else if (!known.equals(e.chainDigest())) {
                throw broken(e, "redelivered with a chain digest other than the one verified");
            }
        }
        if (unrecorded) {
            inbox.start(generation).ifPresent(start -> verifyFromStart(start, belowChain));
        }
    }

    /** Walks down from the start while the delivery holds each position, linking each digest to the one above. */
    private void verifyFromStart(StartPoint start, Map<Long, IntegrationEvent> belowChain) {
        IntegrationEvent above = null;
        for (long p = start.position(); p >= 1; p--) {
            IntegrationEvent e = belowChain.get(p);
            if (e == null) {
                return;
            }
            boolean chains = above == null ? e.chainDigest().equals(start.digest())
                    : ChainDigest.next(e.chainDigest(), above.wire()).equals(above.chainDigest());
            if (!chains) {
                throw broken(e, "redelivered with a chain digest other than the history the generation was loaded "
                        + "from (export position " + start.position() + ")");
            }
            above = e;
        }
    }

    private ChainBrokenException broken(IntegrationEvent e, String why) {
        return new ChainBrokenException(locked.generationId(), locked.stream(), locked.epoch(), e.position(),
                e.chainDigest(), false, why);
    }
}
