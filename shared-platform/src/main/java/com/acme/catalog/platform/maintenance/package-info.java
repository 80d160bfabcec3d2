/**
 * The maintenance switch both services have (pauses writers, relay, consumers and public serving, surviving a
 * restart) and its endpoint. docs/design.md step 9 (pause before an epoch is issued).
 */
package com.acme.catalog.platform.maintenance;
