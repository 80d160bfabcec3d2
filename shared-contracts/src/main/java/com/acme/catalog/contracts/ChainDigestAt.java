package com.acme.catalog.contracts;

/**
 * The answer of the resolver's {@code GET /v1/streams/{tenant}/{catalog}/chain-digest?position=}: the chain digest
 * the resolver holds at {@code position} of its open epoch, and its committed head in the same snapshot. A consumer
 * compares it with the digest it verified at that position: a difference means its copy diverged from the source.
 */
public record ChainDigestAt(String tenant, String catalog, long epoch, long position, String chainDigest,
        long head) {

    public ChainDigestAt {
        StreamId.requirePart("tenant", tenant);
        StreamId.requirePart("catalog", catalog);
        if (epoch < 1 || position < 0 || position > head) {
            throw new IllegalArgumentException("chain digest at position " + position + " of epoch " + epoch
                    + " with head " + head + " is not a position of the epoch");
        }
        if (!ChainDigest.isDigest(chainDigest)) {
            throw new IllegalArgumentException("chainDigest must be 64 lowercase hex characters");
        }
    }
}
