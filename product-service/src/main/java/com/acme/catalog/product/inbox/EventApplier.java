package com.acme.catalog.product.inbox;

import java.util.List;

import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;

import org.springframework.stereotype.Component;

/**
 * The apply code shared by live deliveries and catch-up: given a generation whose cursor row the caller holds
 * locked in its transaction, applies events of that generation's stream and epoch with dedupe by position, chain
 * verification, revision checks, dependency parking and unparking, and saves the advanced cursor (with the inbox
 * rows, in one statement) in the caller's transaction.
 */
@Component
public class EventApplier {

    private final InboxRepository inbox;
    private final ProjectionWriter projection;
    private final DeliveryParser parser;
    private final long maxAhead;

    EventApplier(InboxRepository inbox, ProjectionWriter projection, DeliveryParser parser,
            InboxProperties properties) {
        this.inbox = inbox;
        this.projection = projection;
        this.parser = parser;
        this.maxAhead = properties.maxAhead();
    }

    /**
     * Applies the events and saves the generation's advanced cursor; the caller commits or rolls back both.
     *
     * @throws ChainBrokenException when a digest does not chain (the caller must roll back)
     * @throws com.acme.catalog.contracts.ApiException {@code POSITION_AHEAD} for a position too far past the
     *         verified one
     */
    public ApplyResult apply(GenerationCursor locked, List<IntegrationEvent> events) {
        for (IntegrationEvent e : events) {
            if (!e.stream().equals(locked.stream()) || e.epoch() != locked.epoch()) {
                throw new IllegalArgumentException("event of " + e.stream() + " epoch " + e.epoch()
                        + " given to generation " + locked.generationId() + " of " + locked.stream() + " epoch "
                        + locked.epoch());
            }
        }
        return new ApplyRun(inbox, projection, parser, locked, maxAhead).run(events);
    }

    /** @return how many events the generation holds (PENDING and PARKED) */
    public long heldEvents(long generationId) {
        return inbox.countHeld(generationId);
    }

    /** Drops a held event after a rollback proved it does not chain, so a correct redelivery can pass. */
    public boolean discardBrokenHeld(ChainBrokenException broken) {
        return broken.heldCulprit()
                && inbox.discardPending(broken.generationId(), broken.position(), broken.culpritDigest());
    }
}
