package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

/**
 * An import asked to wait until it is served committed every event, but the product did not serve it with equal
 * checksums within {@code bootstrap.ready.timeout}: 504 {@code PRODUCT_NOT_READY}, with the summary (its
 * {@code verification} says what was not so). Nothing is undone: the stream holds the whole import.
 */
public class ProductNotReadyException extends ApiException {

    private final transient ImportReport report;

    ProductNotReadyException(ImportReport report) {
        super(ProblemCode.PRODUCT_NOT_READY, "the import committed every event, but the product did not serve it "
                + "within the wait: " + report.verification().reason());
        this.report = report;
    }

    public ImportReport report() {
        return report;
    }
}
