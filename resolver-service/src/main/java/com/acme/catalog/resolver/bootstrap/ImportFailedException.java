package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.platform.web.TransientDatabaseFailure;

/**
 * A chunk failed after validation: it was rolled back whole, the import stopped, and earlier chunks stay
 * committed. The problem code is the failing chunk's own when it has one ({@code DESTINATION_NOT_EMPTY} for a
 * concurrent writer, {@code STREAM_FENCED}, …), {@code DATABASE_UNAVAILABLE} when the database dropped the chunk's
 * connection, else {@code INTERNAL}; {@link #report()} says which chunk and which events.
 */
public class ImportFailedException extends ApiException {

    private final transient ImportReport report;

    ImportFailedException(ImportReport report, int chunk, RuntimeException cause) {
        super(cause instanceof ApiException a ? a.code()
                        : TransientDatabaseFailure.isTransient(cause) ? ProblemCode.DATABASE_UNAVAILABLE
                        : ProblemCode.INTERNAL,
                "bootstrap import stopped at chunk " + chunk + " (" + report.committedEvents()
                        + " events in earlier chunks stay committed): " + ChunkCommitter.publicMessage(cause),
                cause);
        this.report = report;
    }

    public ImportReport report() {
        return report;
    }
}
