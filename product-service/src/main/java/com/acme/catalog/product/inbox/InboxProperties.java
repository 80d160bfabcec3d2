package com.acme.catalog.product.inbox;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.inbox.*}: what a delivery may carry and start (docs/product-projections.md; docs/configuration.md
 * lists the keys).
 *
 * @param maxEvents        most events per delivery; a longer one is 400 {@code INVALID_BODY}
 * @param maxAhead         an event further than this past the verified position is 422 {@code POSITION_AHEAD}
 * @param autoStartStreams whether a first delivery of a listed stream without a serving generation starts an
 *                         empty one (false: 404 until a rebuild bootstraps it)
 */
@ConfigurationProperties("product.inbox")
record InboxProperties(@DefaultValue("1000") int maxEvents, @DefaultValue("100000") long maxAhead,
        @DefaultValue("true") boolean autoStartStreams) {

    InboxProperties {
        if (maxEvents < 1) {
            throw new IllegalArgumentException("product.inbox.max-events must be at least 1, not " + maxEvents);
        }
        if (maxAhead < 1) {
            throw new IllegalArgumentException("product.inbox.max-ahead must be at least 1, not " + maxAhead);
        }
    }
}
