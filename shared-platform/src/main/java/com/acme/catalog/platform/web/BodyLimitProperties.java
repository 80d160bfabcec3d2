package com.acme.catalog.platform.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code http.max-body-bytes}, the request body cap of both services (docs/configuration.md), bound once here for
 * the shared {@link BodyLimitFilter} and the product's inbox route.
 *
 * @param maxBodyBytes the largest request body, in bytes, of every route without a cap of its own (413
 *                     {@code PAYLOAD_TOO_LARGE} beyond); the product's inbox takes at least the largest delivery
 *                     whatever this says
 */
@ConfigurationProperties("http")
public record BodyLimitProperties(@DefaultValue("1048576") long maxBodyBytes) {
}
