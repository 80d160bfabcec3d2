/**
 * The epoch endpoints' request and answer records. docs/design.md step 9 (fence restored history).
 */
package com.acme.catalog.contracts.epoch;
