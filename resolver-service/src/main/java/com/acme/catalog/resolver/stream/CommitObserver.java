package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;

/** Told after each physical write transaction commits, off the write's critical path (it must not block). */
public interface CommitObserver {

    /** Every position of {@code stream} in {@code epoch} up to {@code position} is committed. */
    void committed(StreamId stream, long epoch, long position);
}
