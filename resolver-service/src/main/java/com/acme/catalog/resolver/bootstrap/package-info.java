/**
 * Snapshot-derived bootstrap import (seed 003): validates an events file, prepares chunks off the lock and commits
 * them through the write path with contiguous positions, as an endpoint and a command-line mode. DESIGN.md step 1
 * (the import takes positions as every write does) and section 7.
 */
package com.acme.catalog.resolver.bootstrap;
