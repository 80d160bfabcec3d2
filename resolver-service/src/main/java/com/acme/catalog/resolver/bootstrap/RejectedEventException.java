package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

/**
 * The events file is refused before anything is written: {@code INVALID_BODY} when it is not a JSON array of
 * well-formed event envelopes, {@code INVALID_EVENT} when an envelope is well-formed but cannot be imported.
 * Names the first bad event by its 0-based index and its {@code id} (either may be null when unknown).
 */
public class RejectedEventException extends ApiException {

    private final Integer index;
    private final String eventId;

    RejectedEventException(ProblemCode code, Integer index, String eventId, String problem) {
        super(code, describe(index, eventId, problem));
        this.index = index;
        this.eventId = eventId;
    }

    private static String describe(Integer index, String eventId, String problem) {
        if (index == null) {
            return problem;
        }
        return "event " + index + (eventId == null ? "" : " (id " + eventId + ")") + ": " + problem;
    }

    /** @return the 0-based index of the first bad event, or null when the file fails as a whole */
    public Integer index() {
        return index;
    }

    /** @return the first bad event's {@code id}, or null when it has none (or it could not be read) */
    public String eventId() {
        return eventId;
    }
}
