/**
 * What both services speak: stream ids and other ids, the event type and aggregate type names, the chain digest,
 * the event wire envelope and its limits, problem codes and {@code ApiException}. The wire formats of docs/design.md
 * steps 1 (positions and chain digests), 6 (pages) and 8 (deliveries).
 */
package com.acme.catalog.contracts;
