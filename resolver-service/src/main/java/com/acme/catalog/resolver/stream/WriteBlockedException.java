package com.acme.catalog.resolver.stream;

import java.time.Instant;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

/**
 * A write refused because of its stream's {@link WriteBlock}: an import fence (409 {@code IMPORT_IN_PROGRESS}), a move
 * under way (409 {@code STREAM_MOVING}) or done (410 {@code STREAM_MOVED}). Its problem carries {@code location}, the
 * move's target (where to write instead, once moved), and {@code since} ({@link WriteBlockedAdvice}).
 */
public class WriteBlockedException extends ApiException {

    private final String location;
    private final Instant since;

    public WriteBlockedException(ProblemCode code, String message, String location, Instant since) {
        super(code, message);
        this.location = location;
        this.since = since;
    }

    /** @return the move's target; null for an import fence */
    public String location() {
        return location;
    }

    /** @return when the fence was taken or the move began (completed, for {@code STREAM_MOVED}) */
    public Instant since() {
        return since;
    }
}
