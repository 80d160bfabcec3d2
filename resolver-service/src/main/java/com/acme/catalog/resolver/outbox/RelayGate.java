package com.acme.catalog.resolver.outbox;

import com.acme.catalog.contracts.StreamId;

/**
 * Asked before each claim of a consumer's deliveries: whether this instance may relay the stream's epoch now (it
 * holds that epoch as current, the control store was read within its grace, and the cursor is not behind the
 * high-water mark). The epoch capability provides it; the relay's own statements also re-check, in the database,
 * that the epoch is open, not rolled back and not in maintenance.
 */
public interface RelayGate {

    boolean mayRelay(StreamId stream, long epoch, long head);
}
