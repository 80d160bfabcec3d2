package com.acme.catalog.resolver.export;

/** Where an export stands (CONTRACT.md); only READY has a manifest. */
enum ExportStatus {
    RUNNING, READY, FAILED, ABORTED
}
