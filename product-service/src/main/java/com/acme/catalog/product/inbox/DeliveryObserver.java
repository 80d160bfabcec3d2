package com.acme.catalog.product.inbox;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;

/**
 * Told of every delivery's outcome, in process and without waiting: what the live consumer reports to whoever keeps
 * streams complete (the recovery capability provides it). A port, so the inbox depends on no other capability that
 * depends on it.
 */
public interface DeliveryObserver {

    /** A delivery committed; {@code after} is the serving cursor it committed. */
    void delivered(StreamId stream, GenerationCursor after);

    /** A delivery was refused or failed; nothing of it was committed. */
    void deliveryFailed(StreamId stream, RuntimeException e);
}
