/**
 * Strict JSON binding for request records: fields that must have exactly their JSON type, and binding a body read
 * as a tree with the web layer's answers. No docs/design.md step of its own.
 */
package com.acme.catalog.contracts.json;
