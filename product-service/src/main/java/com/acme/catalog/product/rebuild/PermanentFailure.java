package com.acme.catalog.product.rebuild;

import java.util.Objects;

/**
 * A failure of a rebuild's attempt that a new attempt would meet again (an export the resolver FAILED for a reason
 * about the data, an export of another stream): the rebuild ends FAILED at once ({@link RestartPolicy}). The message
 * is {@code CODE: sentence}, as the rebuild's {@code error} shows it.
 */
final class PermanentFailure extends RuntimeException {

    private final String code;
    private final String sentence;

    PermanentFailure(String code, String sentence) {
        super(Objects.requireNonNull(code, "code") + ": " + Objects.requireNonNull(sentence, "sentence"));
        this.code = code;
        this.sentence = sentence;
    }

    String code() {
        return code;
    }

    String sentence() {
        return sentence;
    }
}
