package com.acme.catalog.resolver.stream;

import java.util.Map;

import com.acme.catalog.contracts.StreamId;

/**
 * Work that must commit with the opening of a stream's cursor in an epoch: the stream's first write creates its
 * cursor row, and a rotation opens the next epoch's. Called inside that transaction, after the row is written and
 * while it is locked; a failure rolls the opening (and the write) back. The retention capability provides it: it
 * registers pattern subscribers of the stream, so retention never prunes an event such a consumer has not had.
 */
public interface StreamOpening {

    /** {@code stream}'s cursor was just opened in {@code epoch}, at position 0, in the caller's transaction. */
    void opened(StreamId stream, long epoch);

    /**
     * Many streams' cursors were just opened, each in its epoch, in the caller's transaction (a batch of a fleet
     * rotation); an implementation does for all of them at once what {@link #opened} does for one.
     */
    default void openedAll(Map<StreamId, Long> epochs) {
        epochs.forEach(this::opened);
    }
}
