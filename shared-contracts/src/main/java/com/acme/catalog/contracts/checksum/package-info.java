/**
 * The accepted-state checksum profile both services compute the same way, the resolver over its state and the
 * product over its copy. docs/design.md steps 4 (the manifest's state checksum) and 5 (verify after the load).
 */
package com.acme.catalog.contracts.checksum;
