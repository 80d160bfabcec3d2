package com.acme.catalog.product.inbox;

import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.streams.ProductStreamsProperties;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.stereotype.Component;

/**
 * Which streams a delivery may find without a serving generation and still open: only those {@code PRODUCT_STREAMS}
 * lists or subscribes to by pattern, and only once the resolver confirms the stream, its epoch and the chain digest
 * at the delivered position (a listed stream too: the operator named it, but a delivery could still be forged). A
 * stream the product serves needs no admission; any other delivery is refused, so a delivery (even one carrying a
 * valid relay token and a self-consistent chain) never opens a stream the resolver does not have.
 */
@Component
public class StreamAdmission {

    private final ProductStreamsProperties streams;
    private final ResolverClient resolver;

    public StreamAdmission(ProductStreamsProperties streams, ResolverClient resolver) {
        this.streams = streams;
        this.resolver = resolver;
    }

    /** Whether a delivery of {@code stream}, which has no serving generation, may start an empty one. */
    public boolean mayStartOnDelivery(StreamId stream) {
        return streams.matches(stream);
    }

    /**
     * Asks the resolver for the stream's chain digest at the position of {@code last} (the delivery's last event of
     * the epoch the stream would open in), one request per opened stream.
     *
     * @throws ApiException 404 {@code NOT_FOUND} when the resolver has no such stream or position, 422
     *                      {@code CHAIN_BROKEN} when its digest there is another, 503 when it cannot answer
     */
    public void confirm(StreamId stream, IntegrationEvent last) {
        Optional<ChainDigestAt> at;
        try {
            at = resolver.chainDigestIfKnown(stream, last.epoch(), last.position());
        } catch (ResolverClient.AheadOfSourceException | ResolverClient.GoneException e) {
            throw new ApiException(ProblemCode.NOT_FOUND, "stream %s: the resolver has no position %d of epoch %d "
                    .formatted(stream, last.position(), last.epoch()) + "to confirm this delivery by: "
                    + e.getMessage());
        } catch (RuntimeException e) {
            throw new ApiException(ProblemCode.DATABASE_UNAVAILABLE, "stream " + stream + " cannot be opened now: "
                    + "the resolver could not confirm it (" + e.getMessage() + "); the relay retries");
        }
        if (at.isEmpty()) {
            throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " is not known to the resolver; "
                    + "a delivery never opens a stream the resolver does not have");
        }
        if (!at.get().chainDigest().equals(last.chainDigest())) {
            throw new ApiException(ProblemCode.CHAIN_BROKEN, "stream %s: the delivered digest at position %d of epoch "
                    .formatted(stream, last.position()) + last.epoch() + " is not the resolver's; nothing applied");
        }
    }
}
