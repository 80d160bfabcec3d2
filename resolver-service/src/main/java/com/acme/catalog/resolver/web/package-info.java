/**
 * The resolver's thin web configuration (security, error mapping and OpenAPI come from shared-platform's
 * {@code web} package). No docs/design.md step of its own.
 */
package com.acme.catalog.resolver.web;
