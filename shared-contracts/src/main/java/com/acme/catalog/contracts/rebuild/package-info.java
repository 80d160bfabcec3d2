/**
 * Rebuilds on the wire: the request and answer records of the product's {@code /v1/rebuilds}. docs/design.md steps 2-7
 * (a rebuild drives them; its status names the phase it is in).
 */
package com.acme.catalog.contracts.rebuild;
