/**
 * Computing a checksum profile of {@code shared-contracts} over database rows in one snapshot: the resolver's
 * state checksum and the product's projection checksum run the same query shape.
 */
package com.acme.catalog.platform.checksum;
