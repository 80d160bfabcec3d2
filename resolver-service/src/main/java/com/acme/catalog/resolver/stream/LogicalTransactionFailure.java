package com.acme.catalog.resolver.stream;

import java.util.function.Supplier;

/**
 * One logical transaction of a physical write failed while it was applied (bad revision, missing item, anything
 * its own changes caused); nothing has been written yet. {@link WriteCoalescer} uses the index to roll that write
 * back alone and retry the others; every other caller sees only the cause.
 */
final class LogicalTransactionFailure extends RuntimeException {

    private final int index;

    LogicalTransactionFailure(int index, RuntimeException cause) {
        super("logical transaction " + index + " failed: " + cause.getMessage(), cause, false, false);
        this.index = index;
    }

    /** @return the failing transaction's index in the physical write's list */
    int index() {
        return index;
    }

    /** The failure as its caller would see it without coalescing. */
    RuntimeException failure() {
        return (RuntimeException) getCause();
    }

    /** Runs {@code write}, rethrowing a {@link LogicalTransactionFailure} as its cause. */
    static <T> T unwrap(Supplier<T> write) {
        try {
            return write.get();
        } catch (LogicalTransactionFailure e) {
            throw e.failure();
        }
    }
}
