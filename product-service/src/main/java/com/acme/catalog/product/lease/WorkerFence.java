package com.acme.catalog.product.lease;

import com.acme.catalog.contracts.StreamId;

/** A held worker lease: the stream, the owning instance and the fence it was acquired with. */
public record WorkerFence(StreamId stream, String owner, long fence) {

    public WorkerFence {
        if (stream == null || owner == null || owner.isBlank() || fence < 1) {
            throw new IllegalArgumentException("a worker fence needs a stream, an owner and a fence >= 1");
        }
    }

    @Override
    public String toString() {
        return stream + " owner " + owner + " fence " + fence;
    }
}
