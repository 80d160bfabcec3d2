package com.acme.catalog.contracts.epoch;

import java.util.Objects;

import com.acme.catalog.contracts.ChainDigest;

/**
 * Where a rotation started a stream's new epoch (epoch N+1): the stream's restored position {@code position} in
 * epoch {@code epoch} (N, the epoch the rotation fenced) and the chain digest there. The accepted state the new epoch
 * starts from is exactly the state at that position: a reader whose applied (epoch, position, chain digest) equals
 * these three holds it. A reset's new epoch starts from nothing: {@code empty} true, {@code epoch} null, position 0
 * and the digest of position 0 (64 {@code 0}); no earlier history matches it. The new epoch's own chain starts at
 * position 0 with digest 64 {@code 0} either way.
 *
 * @param epoch       the epoch whose position this is; null for a reset (and for a stream that had no history)
 * @param position    the restored position P in {@code epoch}; 0 for a reset
 * @param chainDigest the chain digest at P
 * @param empty       whether the new epoch starts with no accepted state (a reset, or a stream never written)
 */
public record StartsFrom(Long epoch, long position, String chainDigest, boolean empty) {

    public StartsFrom {
        if (position < 0 || (epoch != null && epoch < 1)) {
            throw new IllegalArgumentException("position must be >= 0 and epoch >= 1");
        }
        Objects.requireNonNull(chainDigest, "chainDigest");
        if (!chainDigest.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("chainDigest must be 64 lowercase hex digits");
        }
        if (empty && (epoch != null || position != 0 || !ChainDigest.ZERO.equals(chainDigest))) {
            throw new IllegalArgumentException("an empty start is position 0 of no epoch, digest 64 zeros");
        }
    }

    /** The start of a new epoch that holds nothing (a reset). */
    public static StartsFrom nothing() {
        return new StartsFrom(null, 0, ChainDigest.ZERO, true);
    }
}
