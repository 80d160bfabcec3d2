/**
 * Snapshot-derived bootstrap import (seed 003, docs/design.md §7): validates an events file, prepares chunks off the
 * lock and commits them through the write path with contiguous positions, as an endpoint and a command-line mode.
 * docs/design.md step 1 (the import takes positions as every write does) and section 7.
 */
package com.acme.catalog.resolver.bootstrap;
