/**
 * Database helpers both services use: creating a missing database at start, snapshot transactions, and the SQL
 * state behind a failure. Supports docs/design.md step 3 (one snapshot).
 */
package com.acme.catalog.platform.db;
