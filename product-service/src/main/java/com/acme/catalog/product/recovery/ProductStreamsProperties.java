package com.acme.catalog.product.recovery;

import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.streams} ({@code PRODUCT_STREAMS}): the streams this product serves without being told again. The
 * recovery worker bootstraps each at start; only these may be started by their first delivery
 * ({@code inbox.StreamAdmission}). Public for the inbox.
 *
 * @param streams {@code tenant/catalog,…}; empty: only streams a rebuild bootstrapped are served
 */
@ConfigurationProperties("product")
public record ProductStreamsProperties(@DefaultValue("") String streams) {

    public ProductStreamsProperties {
        RecoveryWorker.parseStreams(streams); // a malformed entry fails the start
    }

    /** @return the listed streams, in their order */
    public List<StreamId> list() {
        return RecoveryWorker.parseStreams(streams);
    }
}
