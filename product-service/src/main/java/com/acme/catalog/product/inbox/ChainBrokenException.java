package com.acme.catalog.product.inbox;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

/**
 * An event's chain digest does not follow from the verified digest before it, or contradicts the digest already
 * recorded for its position: 422 {@code CHAIN_BROKEN}, nothing of the delivery is applied. When the culprit is an
 * event held from an earlier delivery ({@link #heldCulprit()}), it is proven bad and the caller discards it after
 * the rollback, so a redelivery of the correct event can pass.
 */
public class ChainBrokenException extends ApiException {

    private final long generationId;
    private final long position;
    private final String culpritDigest;
    private final boolean heldCulprit;

    ChainBrokenException(long generationId, StreamId stream, long epoch, long position, String culpritDigest,
            boolean heldCulprit, String why) {
        super(ProblemCode.CHAIN_BROKEN, "stream %s epoch %d position %d: %s".formatted(stream, epoch, position, why));
        this.generationId = generationId;
        this.position = position;
        this.culpritDigest = culpritDigest;
        this.heldCulprit = heldCulprit;
    }

    public long generationId() {
        return generationId;
    }

    public long position() {
        return position;
    }

    public String culpritDigest() {
        return culpritDigest;
    }

    /** @return whether the event that broke the chain was held from an earlier delivery */
    public boolean heldCulprit() {
        return heldCulprit;
    }
}
