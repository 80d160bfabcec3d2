/**
 * The resolver service: the source of truth for accepted state of every stream (tenant, catalog), its outbox,
 * retention, exports and history epochs. Each sub-package is one capability holding its repository, service,
 * scheduler and controller; this package only starts the application. docs/design.md steps 1-4, 6, 9 and 10 are
 * implemented here; steps 5, 7 and 8 are the product's.
 */
package com.acme.catalog.resolver;
