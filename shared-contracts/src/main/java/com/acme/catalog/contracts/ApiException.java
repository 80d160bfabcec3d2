package com.acme.catalog.contracts;

/**
 * A failure with a contract outcome: answered once, in one place, as problem+json with {@link #code()}.
 * Subclass it for outcomes callers branch on (an expired lease, a stale cursor).
 */
public class ApiException extends RuntimeException {

    private final ProblemCode code;

    public ApiException(ProblemCode code, String message) {
        super(message);
        this.code = code;
    }

    public ApiException(ProblemCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ProblemCode code() {
        return code;
    }
}
