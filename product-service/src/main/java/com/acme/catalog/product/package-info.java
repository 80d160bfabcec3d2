/**
 * The product service (docs/design.md §3): consumes the resolver's integration events into rebuildable public catalog
 * views and search, and serves them. One package per capability: {@code inbox} (the live consumer),
 * {@code projection} (generations and their read models), {@code rebuild}, {@code recovery}, {@code progress},
 * {@code completeness}, {@code serving}, {@code epoch}, {@code maintenance}, {@code checksum}, {@code metrics} and
 * {@code web}. Settings are one properties record per concern, listed in docs/configuration.md.
 */
package com.acme.catalog.product;
