package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;

/** Tells the cursor read how far the outbox of a (stream, epoch) may already be pruned; retention provides it. */
public interface PrunedThroughSource {

    long prunedThrough(StreamId stream, long epoch);
}
