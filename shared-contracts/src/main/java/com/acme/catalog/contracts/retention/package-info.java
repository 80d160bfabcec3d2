/**
 * The retention endpoints' request and answer records (consumers, progress, leases, prune), each request validated
 * in its compact constructor. docs/design.md steps 2 (leases), 8 (progress reports) and 10 (prune).
 */
package com.acme.catalog.contracts.retention;
