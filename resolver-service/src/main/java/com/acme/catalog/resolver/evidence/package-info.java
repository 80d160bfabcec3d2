/**
 * Evidence: artifacts (raw bytes in the object store, content-addressed per tenant), extraction runs and their
 * claims, and evidence retention (missing and expired artifacts). Intake changes no exported state, so it takes no
 * cursor lock (docs/design.md step 1, its exception); retention of evidence is beside step 10, not part of it.
 */
package com.acme.catalog.resolver.evidence;
