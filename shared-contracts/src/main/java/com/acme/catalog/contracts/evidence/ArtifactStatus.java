package com.acme.catalog.contracts.evidence;

/** Where an artifact's bytes are: in the store, flagged missing from it, or expired by evidence retention. */
public enum ArtifactStatus {
    PRESENT, MISSING, EXPIRED
}
