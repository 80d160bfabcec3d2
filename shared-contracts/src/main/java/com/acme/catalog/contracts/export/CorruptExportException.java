package com.acme.catalog.contracts.export;

import java.io.IOException;

/**
 * An export object or manifest is not what its manifest promises: wrong size, SHA-256 or row count, not valid
 * gzip or CSV, or a table checksum that differs. Whoever loaded rows from it must discard them.
 */
public class CorruptExportException extends IOException {

    public CorruptExportException(String message) {
        super(message);
    }

    public CorruptExportException(String message, Throwable cause) {
        super(message, cause);
    }
}
