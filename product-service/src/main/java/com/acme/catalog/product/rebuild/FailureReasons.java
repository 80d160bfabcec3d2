package com.acme.catalog.product.rebuild;

/**
 * The one rule for what an operator-facing field says about a failure ({@code CODE: sentence}, never a Java class
 * name): the rebuild's {@code error} and the recovery worker's reason both take it from {@link RestartPolicy}.
 */
public final class FailureReasons {

    private FailureReasons() {
    }

    /** @return {@code failure} as {@code CODE: sentence}, e.g. {@code RESOLVER_UNREACHABLE: the resolver did not answer (…)} */
    public static String describe(Throwable failure) {
        return RestartPolicy.describe(failure);
    }
}
