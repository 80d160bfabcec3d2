/**
 * Database helpers both services use: waiting, bounded, for a database that is not accepting connections yet and
 * creating a missing one at start (before Flyway), snapshot transactions, and the SQL state behind a failure.
 * Supports docs/design.md step 3 (one snapshot).
 */
package com.acme.catalog.platform.db;
