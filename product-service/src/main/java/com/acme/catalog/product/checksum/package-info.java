/**
 * Projection checksums (docs/design.md §7): the versioned canonical checksum profiles of a serving generation, computed
 * with the resolver's columns, order and renderings so that both compare exactly at the same position
 * ({@code GET /v1/streams/{tenant}/{catalog}/projection-checksum}).
 */
package com.acme.catalog.product.checksum;
