package com.acme.catalog.contracts.evidence;

import com.acme.catalog.contracts.BodyRules;

/**
 * {@code PUT /v1/tenants/{tenant}/evidence/{artifactId}/fixture}: marks an artifact as a regression fixture (kept
 * whatever references it) or clears the mark.
 */
public record FixtureRequest(Boolean fixture) {

    public FixtureRequest {
        BodyRules.present("fixture", fixture);
    }
}
