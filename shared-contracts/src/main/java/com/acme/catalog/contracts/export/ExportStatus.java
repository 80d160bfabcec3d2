package com.acme.catalog.contracts.export;

/** Where an export stands (the {@code status} of {@code GET /v1/exports/{exportId}}); only READY has a manifest. */
public enum ExportStatus {
    RUNNING, READY, FAILED, ABORTED;

    /** @return whether the export will not change any more */
    public boolean ended() {
        return this != RUNNING;
    }
}
