/**
 * Database helpers both services use: creating a missing database at start and snapshot transactions. Supports
 * DESIGN.md step 3 (one snapshot).
 */
package com.acme.catalog.contracts.db;
