package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;

/**
 * Decides whether a write may commit, in the write's own transaction, from the cursor row it locked: the one place
 * where maintenance, the history-epoch fence and rollback detection stop the write path (docs/epochs.md). The
 * epoch capability provides it.
 */
public interface WriteGate {

    /**
     * The epoch a stream's first cursor row opens in (its current epoch in the control store).
     *
     * @throws com.acme.catalog.contracts.ApiException 503 when the epoch cannot be known
     */
    long epochToOpen(StreamId stream);

    /**
     * Refuses, by throwing, a write that must not commit on {@code lock}; the caller's transaction then rolls back.
     *
     * @throws com.acme.catalog.contracts.ApiException 503 {@code MAINTENANCE}, {@code STREAM_FENCED},
     *         {@code HISTORY_ROLLED_BACK} or {@code CONTROL_STORE_UNAVAILABLE}
     */
    void admit(StreamId stream, CursorLock lock);

    /**
     * What the cursor lock read, under the maintenance hold: the open cursor, whether a rollback was recorded on it,
     * whether the service is in maintenance, and what else blocks its writes (null: nothing), which the cursor
     * repository judges after the gate.
     */
    record CursorLock(Cursor cursor, boolean rolledBack, boolean maintenance, WriteBlock block) {

        public CursorLock(Cursor cursor, boolean rolledBack, boolean maintenance) {
            this(cursor, rolledBack, maintenance, null);
        }
    }
}
