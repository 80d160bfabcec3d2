/**
 * The write endpoints' answers and the cursor read. The write bodies themselves are parsed by the resolver's
 * hand-written {@code ChangeParser} (one pass over the tree Jackson reads), not bound as records. docs/design.md step 1
 * (serialized writes: positions and the cursor).
 */
package com.acme.catalog.contracts.stream;
