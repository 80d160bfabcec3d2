package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;

/**
 * Meters that count or time a stream's work (per instance, or per tenant behind a setting): told when a stream is
 * known from the database, so the meters that will count it exist at 0 before this instance's first work for it.
 * Implemented by the write path's and the exports' metrics; the retention status refresh tells them.
 */
public interface StreamMeters {

    /** Registers the meters that count {@code stream}'s work, if they are not yet. */
    void known(StreamId stream);
}
