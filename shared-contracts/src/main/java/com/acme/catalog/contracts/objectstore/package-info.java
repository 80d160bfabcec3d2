/**
 * The object store interface with its S3 and filesystem implementations, digesting what it writes. docs/design.md
 * steps 4 (objects and manifests are written here) and 5 (and read back).
 */
package com.acme.catalog.contracts.objectstore;
