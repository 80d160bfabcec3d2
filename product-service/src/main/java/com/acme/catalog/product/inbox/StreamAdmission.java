package com.acme.catalog.product.inbox;

import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.recovery.ProductStreamsProperties;

import org.springframework.stereotype.Component;

/**
 * Which streams a delivery may find without a serving generation and still be applied: only those in
 * {@code PRODUCT_STREAMS}. A stream the product serves (bootstrapped by a rebuild) needs no admission; any other
 * delivery is refused, so a delivery never opens a stream.
 */
@Component
public class StreamAdmission {

    private final Set<StreamId> configured;

    public StreamAdmission(ProductStreamsProperties streams) {
        this.configured = Set.copyOf(streams.list());
    }

    /** Whether a delivery of {@code stream}, which has no serving generation, may start an empty one. */
    public boolean mayStartOnDelivery(StreamId stream) {
        return configured.contains(stream);
    }
}
