package com.acme.catalog.contracts.stream;

import java.time.Instant;

import com.acme.catalog.contracts.epoch.StartsFrom;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One stream of {@code GET /v1/streams}: its open epoch, the committed position there ({@code cursor}), the chain
 * digest at it (64 {@code 0} at position 0), the position through which its outbox is pruned, and the stream's
 * current epoch in the control store ({@code currentEpoch}; absent when the control store could not be read). A
 * {@code currentEpoch} above {@code epoch} means the database's history is behind the control store's (a restore
 * nobody has rotated yet): the stream refuses writes until an operator rotates.
 *
 * <p>{@code rolledBack} is true while the resolver has found the open epoch's history rolled back (its cursor behind
 * the control store's high-water mark, a consumer ahead of it, an epoch older than the store's) and refuses writes
 * and the relay with 503 {@code HISTORY_ROLLED_BACK} until an operator rotates; {@code rolledBackAt} is when it
 * found it (absent otherwise). A reader of the stream that holds more than {@code cursor}, or another digest there,
 * holds history that no longer exists (docs/epochs.md "Rollback detection").
 *
 * <p>{@code startsFrom} is where the control store's current epoch ({@code currentEpoch}) starts from, as its
 * rotation recorded it ({@link StartsFrom}): a reader holding exactly that (epoch, position, chain digest) holds the
 * state the new epoch starts over. Absent where unknown (a first epoch, an epoch issued before rotations recorded it,
 * or the control store could not be read), so a listing tells a reader the epochs and starts of a page of streams at
 * once.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamSummary(String tenant, String catalog, long epoch, long cursor, String chainDigest,
        long prunedThrough, Long currentEpoch, Boolean rolledBack, Instant rolledBackAt, StartsFrom startsFrom) {

    /** A listing of a resolver from before the field says nothing of rollbacks: read as not rolled back. */
    public StreamSummary {
        rolledBack = Boolean.TRUE.equals(rolledBack);
    }

    /** A stream without what the control store says of where its current epoch starts. */
    public StreamSummary(String tenant, String catalog, long epoch, long cursor, String chainDigest,
            long prunedThrough, Long currentEpoch, Boolean rolledBack, Instant rolledBackAt) {
        this(tenant, catalog, epoch, cursor, chainDigest, prunedThrough, currentEpoch, rolledBack, rolledBackAt,
                null);
    }

    /** A stream as the resolver's database holds it, before the control store's epoch is added. */
    public StreamSummary(String tenant, String catalog, long epoch, long cursor, String chainDigest,
            long prunedThrough, Long currentEpoch) {
        this(tenant, catalog, epoch, cursor, chainDigest, prunedThrough, currentEpoch, false, null);
    }

    /** The same with the control store's current epoch. */
    public StreamSummary withCurrentEpoch(Long current) {
        return new StreamSummary(tenant, catalog, epoch, cursor, chainDigest, prunedThrough, current, rolledBack,
                rolledBackAt, startsFrom);
    }

    /** The same with the control store's current epoch and where it starts from (either may be null). */
    public StreamSummary withCurrentEpoch(Long current, StartsFrom starts) {
        return new StreamSummary(tenant, catalog, epoch, cursor, chainDigest, prunedThrough, current, rolledBack,
                rolledBackAt, starts);
    }
}
