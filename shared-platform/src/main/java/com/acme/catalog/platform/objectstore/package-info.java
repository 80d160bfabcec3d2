/**
 * The filesystem and S3 implementations of the contract's {@code ObjectStore}, digesting what they write, and the
 * configuration that picks one from {@code OBJECT_STORE_URI}. docs/design.md steps 4 and 5.
 */
package com.acme.catalog.platform.objectstore;
