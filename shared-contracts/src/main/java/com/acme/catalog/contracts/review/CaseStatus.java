package com.acme.catalog.contracts.review;

/** A review case is OPEN until its one decision is recorded, then DECIDED. */
public enum CaseStatus {
    OPEN, DECIDED
}
