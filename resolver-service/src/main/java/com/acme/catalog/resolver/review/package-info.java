/**
 * Review cases over claims and their immutable decisions; an ACCEPT applies the case's changes as one logical
 * transaction through the write path under the cursor lock (docs/design.md step 1).
 */
package com.acme.catalog.resolver.review;
