/**
 * The maintenance endpoint's request and answer. The switch itself (pauses writers, relay, consumers and public
 * serving, surviving a restart) is shared-platform's. docs/design.md step 9 (pause before an epoch is issued).
 */
package com.acme.catalog.contracts.maintenance;
