/**
 * The product's part of the shared web layer: the public catalog paths, and the inbox's body cap, never below the
 * largest delivery the resolver sends, so no accepted write can stall its stream at the inbox (docs/design.md step 8).
 * Error mapping and security are shared-platform's {@code SharedWebConfiguration}; {@code http.max-body-bytes} is
 * its key, read here too.
 */
package com.acme.catalog.product.web;
