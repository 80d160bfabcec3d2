/**
 * The product's projection completeness on the wire ({@code GET /v1/projection-completeness}): how far its copy
 * is verified against the source. DESIGN.md step 8 (live progress) and section 6 (automatic projection recovery).
 */
package com.acme.catalog.contracts.completeness;
