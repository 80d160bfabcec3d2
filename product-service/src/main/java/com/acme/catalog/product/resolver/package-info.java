/**
 * The product's one client of the resolver ({@link com.acme.catalog.product.resolver.ResolverClient}), with its
 * settings. It makes the product's side of docs/design.md steps 2 (pin retention: lease create, renew, release), 4
 * (request an export, poll it until READY), 6 (retained events after W), 7 (register the consumer at the cutover
 * target) and 8 (report durable progress), and the reads of step 9's checks (current epoch, retention status, chain
 * digest, the position-ahead report). Used by {@code rebuild}, {@code progress} and {@code recovery}.
 */
package com.acme.catalog.product.resolver;
