/**
 * The review endpoints' request and answer records (cases, decisions, verdicts). docs/design.md step 1 (an accepted
 * decision is a write under the cursor lock).
 */
package com.acme.catalog.contracts.review;
