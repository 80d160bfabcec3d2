/**
 * The web pieces both services share: bearer tokens and roles, problem+json error mapping, body and query limits,
 * the OpenAPI problem descriptions. No docs/design.md step of its own.
 */
package com.acme.catalog.platform.web;
