/**
 * The object store interface: what an export is written to and read from. Its filesystem and S3 implementations
 * are shared-platform's. docs/design.md steps 4 (objects and manifests are written here) and 5 (and read back).
 */
package com.acme.catalog.contracts.objectstore;
