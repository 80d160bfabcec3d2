package com.acme.catalog.resolver.convert;

/**
 * The snapshot cannot be converted, and no output was written: an export that is not what its manifest promises (size,
 * SHA-256, rows, checksums) or whose history does not reproduce its current state, or a per-table snapshot with a bad
 * row. The message names where (object, or file and line) and what.
 */
public class SnapshotRejectedException extends RuntimeException {

    public SnapshotRejectedException(String message) {
        super(message);
    }

    public SnapshotRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
