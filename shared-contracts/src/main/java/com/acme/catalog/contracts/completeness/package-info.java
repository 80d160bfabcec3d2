/**
 * The product's projection completeness on the wire ({@code GET /v1/projection-completeness}): how far its copy
 * is verified against the source. docs/design.md step 8 (live progress) and §7 (the recovery worker and its
 * completeness status).
 */
package com.acme.catalog.contracts.completeness;
