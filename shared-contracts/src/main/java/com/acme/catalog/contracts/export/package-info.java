/**
 * Exports on the wire: the request and status records and the {@code ExportStatus} of {@code /v1/exports}, the
 * manifest, the object formats and their readers, and the page of retained events. docs/design.md steps 4 (publish
 * export), 5 (load shadow: what the loader reads and verifies) and 6 (retained events).
 */
package com.acme.catalog.contracts.export;
