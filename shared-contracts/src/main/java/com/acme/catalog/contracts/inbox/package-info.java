/**
 * Deliveries on the wire, the answer side: what the product's {@code POST /v1/inbox/events} answers the relay. The
 * delivery body itself is the event wire of {@code contracts.EventWire}. docs/design.md step 8 (deliveries).
 */
package com.acme.catalog.contracts.inbox;
