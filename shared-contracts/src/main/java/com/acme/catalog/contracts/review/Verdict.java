package com.acme.catalog.contracts.review;

/** What a reviewer decided: ACCEPT applies the case's changes to accepted state, REJECT applies nothing. */
public enum Verdict {
    ACCEPT, REJECT
}
