package com.acme.catalog.resolver.export;

/** A running export lost its premise in a way no contract code names; it ends ABORTED with this message. */
class ExportAbortedException extends RuntimeException {

    ExportAbortedException(String message) {
        super(message);
    }
}
