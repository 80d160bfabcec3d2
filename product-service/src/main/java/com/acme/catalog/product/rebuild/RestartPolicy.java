package com.acme.catalog.product.rebuild;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.web.TransientDatabaseFailure;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.web.client.ResourceAccessException;

/**
 * Which failures of an attempt restart the rebuild from a new export (bounded by {@code max-attempts}) instead of
 * leaving it FAILED: the restart signals — a 410 from the resolver (the lease, cursor or epoch is gone) and the
 * product's own {@link RestartRequired} (an aborted export, an export or page of an old epoch, an epoch changed before
 * the cutover) — and failures that say nothing about the data — the product's database connection lost (a restart,
 * {@code pg_terminate_backend}), the resolver unreachable or answering 502/503/504. A restart drops the shadow and
 * starts over, so retrying them is safe; any other failure (a corrupt export, a checksum that does not match, a chain
 * that does not verify, a refusal) stays FAILED for an operator. Found by the fault suite (docs/spk-05.md): cut connections left 7–8 of 13–14 rebuilds FAILED.
 */
final class RestartPolicy {

    private static final int MAX_DEPTH = 16;

    private RestartPolicy() {
    }

    /**
     * A restart signal is the attempt's reason before anything else is looked at: should the product be stopping or
     * the worker lease gone, the rebuild is handed over with this reason.
     *
     * @return the signal's reason ({@code CODE: sentence} for {@link RestartRequired}, the call and its 410 answer
     *         for the resolver's), or empty when {@code failure} is not a restart signal
     */
    static Optional<String> restartSignal(Throwable failure) {
        if (failure instanceof ResolverClient.GoneException || failure instanceof RestartRequired) {
            return Optional.of(failure.getMessage());
        }
        return Optional.empty();
    }

    /** @return why the attempt should restart, or empty when the failure must leave the rebuild FAILED */
    static Optional<String> restartReason(Throwable failure) {
        Optional<String> signalled = restartSignal(failure);
        if (signalled.isPresent()) {
            return signalled;
        }
        if (TransientDatabaseFailure.isTransient(failure)) {
            return Optional.of("the product's database connection failed: " + describe(failure));
        }
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
            if (t instanceof CorruptExportException) {
                return Optional.empty(); // an I/O exception by type, but about the export's bytes
            }
            if (t instanceof ResolverClient.UnavailableException || t instanceof ResourceAccessException
                    || t instanceof IOException || t instanceof UncheckedIOException) {
                return Optional.of("the resolver was unreachable: " + describe(failure));
            }
        }
        return Optional.empty();
    }

    private static String describe(Throwable failure) {
        return failure.getClass().getSimpleName() + ": " + failure.getMessage();
    }
}
