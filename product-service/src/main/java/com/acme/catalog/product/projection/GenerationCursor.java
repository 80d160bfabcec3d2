package com.acme.catalog.product.projection;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;

/**
 * Where one generation stands in its (stream, epoch): {@code chainPosition}/{@code chainDigest} is how far the
 * hash chain is verified (events above it are held PENDING), {@code appliedPosition} is the contiguous processed
 * position (every position at or below it is APPLIED or IGNORED, never PARKED; always at most
 * {@code chainPosition}), {@code highestSeenPosition} the greatest position any delivery carried,
 * {@code projectionVersion} the projection version the generation was built with ({@link ProjectionVersion}).
 */
public record GenerationCursor(long generationId, StreamId stream, long epoch, long chainPosition,
        String chainDigest, long appliedPosition, long highestSeenPosition, int projectionVersion) {

    public GenerationCursor {
        if (epoch < 1 || chainPosition < 0 || appliedPosition < 0 || appliedPosition > chainPosition) {
            throw new IllegalArgumentException("inconsistent cursor of generation " + generationId + ": epoch "
                    + epoch + ", chain " + chainPosition + ", applied " + appliedPosition);
        }
        if (!ChainDigest.isDigest(chainDigest)) {
            throw new IllegalArgumentException("generation " + generationId + " has no valid chain digest");
        }
    }

    /** @return events the deliveries announced that are not processed yet (never negative) */
    public long lag() {
        return Math.max(0, highestSeenPosition - appliedPosition);
    }

    public GenerationCursor advancedTo(long chain, String digest, long applied, long highestSeen) {
        return new GenerationCursor(generationId, stream, epoch, chain, digest, applied,
                Math.max(highestSeenPosition, highestSeen), projectionVersion);
    }
}
