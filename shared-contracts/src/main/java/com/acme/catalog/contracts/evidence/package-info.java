/**
 * The evidence endpoints' request and answer records (artifacts, extraction runs, claims, evidence retention).
 * No docs/design.md step of its own (evidence intake is step 1's exception: it takes no cursor lock).
 */
package com.acme.catalog.contracts.evidence;
