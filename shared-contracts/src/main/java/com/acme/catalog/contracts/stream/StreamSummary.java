package com.acme.catalog.contracts.stream;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One stream of {@code GET /v1/streams}: its open epoch, the committed position there ({@code cursor}), the chain
 * digest at it (64 {@code 0} at position 0), the position through which its outbox is pruned, and the stream's
 * current epoch in the control store ({@code currentEpoch}; absent when the control store could not be read). A
 * {@code currentEpoch} above {@code epoch} means the database's history is behind the control store's (a restore
 * nobody has rotated yet): the stream refuses writes until an operator rotates.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamSummary(String tenant, String catalog, long epoch, long cursor, String chainDigest,
        long prunedThrough, Long currentEpoch) {

    /** The same with the control store's current epoch. */
    public StreamSummary withCurrentEpoch(Long current) {
        return new StreamSummary(tenant, catalog, epoch, cursor, chainDigest, prunedThrough, current);
    }
}
