package com.acme.catalog.resolver.outbox;

import com.acme.catalog.contracts.StreamId;

/**
 * How a transaction wakes the relay at its commit: a PostgreSQL notification on {@value #CHANNEL} whose payload
 * names the stream epoch to look at ({@code tenant/catalog/epoch}; the write path's cursor advance sends it), or
 * {@value #EVERY_STREAM} for a look at every stream. Notifications are delivered at commit, never for a rollback.
 */
public final class RelayWakeUp {

    /** The channel the relay listens on. */
    public static final String CHANNEL = "outbox_committed";
    /** The payload that asks for a pass over every stream's consumers (e.g. a subscription's registrations). */
    public static final String EVERY_STREAM = "*";
    /** Sends {@code ?} as the payload at commit. */
    public static final String SQL_NOTIFY = "SELECT pg_notify('" + CHANNEL + "', ?)";

    private RelayWakeUp() {
    }

    /** @return the payload that names one stream epoch */
    public static String payload(StreamId stream, long epoch) {
        return stream.tenant() + "/" + stream.catalog() + "/" + epoch;
    }
}
