package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;

/** A stream's committed position and chain digest in one epoch. */
public record Cursor(StreamId stream, long epoch, long position, String chainDigest) {
}
