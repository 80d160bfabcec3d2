/**
 * What both services share at run time and a client of the API does not need: web and security, SQL helpers, the
 * object stores, the maintenance switch, daemon threads and backoff. The contract itself is {@code shared-contracts}.
 */
package com.acme.catalog.platform;
