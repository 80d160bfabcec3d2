package com.acme.catalog.resolver.epoch;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;

/**
 * A stream's reset: a new epoch that starts empty (docs/epochs.md "Reset"). The old epoch's cursor is fenced exactly
 * as a rotation fences it (its outbox rows, consumer registrations and audit stay in it; its positions are never used
 * again), the new epoch's cursor opens at position 0, and the stream's accepted state (items, mappings, policies,
 * releases and their revisions) is removed in the same transaction, so the new epoch serves, exports and checksums
 * the empty state. The control-store history records the reason and {@code startsFrom} position 0 of no epoch.
 */
public interface StreamReset {

    /**
     * {@code POST /v1/streams/{tenant}/{catalog}/reset}: a reset while the resolver is in maintenance.
     *
     * @return the new epoch, open at position 0
     * @throws ApiException 409 {@code MAINTENANCE_REQUIRED} unless the resolver is in maintenance, 409
     *                      {@code ROTATION_RUNNING} while a fleet rotation has the stream still to rotate, 409
     *                      {@code STREAM_HAS_DECISIONS} when review decisions cite its revisions, 409
     *                      {@code EPOCH_MISMATCH} when another rotation issued the epoch first, 503
     *                      {@code CONTROL_STORE_UNAVAILABLE}
     */
    long reset(StreamId stream, String reason, String issuer);

    /**
     * A reset by a caller that holds the stream's import fence instead of maintenance (the bootstrap import, undoing
     * a failed import): the same reset, in a transaction of its own, without maintenance. {@code fenceHeld} runs
     * inside that transaction once the stream's open cursor is locked and before the control store issues anything;
     * it must throw (an {@link ApiException} is answered as it is) unless the caller's fence is held, so a fence
     * lost meanwhile resets nothing. Writes to the stream are the fence's to refuse: this method does not check
     * maintenance. Call it outside any transaction of the caller's.
     *
     * @return the new epoch, open at position 0
     * @throws ApiException as {@link #reset}, except {@code MAINTENANCE_REQUIRED}; whatever {@code fenceHeld} throws
     */
    long resetUnderImportFence(StreamId stream, String reason, String issuer, Runnable fenceHeld);
}
