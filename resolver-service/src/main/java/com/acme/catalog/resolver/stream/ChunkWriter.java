package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import tools.jackson.databind.ObjectMapper;

/**
 * The write protocol of {@link StreamWriter#appendLocked} for many logical transactions in one physical
 * transaction, in three round trips whatever the number of events: the cursor lock with one prefetch of
 * everything the changes read, one statement with every row and the cursor advance, the commit. Same positions, revisions,
 * transaction ids (one new UUIDv7 per logical transaction), rows, wire text and chain digests as
 * {@link StreamWriter#appendLocked}, and the same exceptions for the same input; only the round trips differ.
 * Used by bootstrap chunks; meant for coalesced live writes too.
 */
@Service
public class ChunkWriter {

    private final CursorRepository cursors;
    private final BatchWriteRepository batch;
    private final ObjectMapper json;
    private final ChangeApplier applier;

    ChunkWriter(CursorRepository cursors, BatchWriteRepository batch, ObjectMapper json) {
        this.cursors = cursors;
        this.batch = batch;
        this.json = json;
        this.applier = new ChangeApplier(json);
    }

    /**
     * Appends the transactions in order inside the caller's open transaction; the cursor stays locked until it
     * ends. Nothing is written if this throws (the caller rolls back anyway).
     *
     * @return one result per logical transaction, in order; never null
     */
    public List<WriteResult> appendLocked(StreamId stream, List<List<Change>> transactions) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("appendLocked needs an open transaction");
        }
        BufferedStateAccess.Reads reads = BufferedStateAccess.reads(transactions);
        BatchWriteRepository.LockedPrefetch lp = batch.lockAndPrefetch(stream, reads.idsByType(), reads.refs());
        Cursor locked = lp.cursor();
        BatchWriteRepository.Prefetched found = lp.prefetched();
        if (locked == null) {
            // first write of the stream: create and lock its cursor row, then read again under the lock
            locked = cursors.lockCursor(stream);
            found = batch.prefetch(stream, reads.idsByType(), reads.refs());
        }
        BufferedStateAccess buffer = new BufferedStateAccess(batch, stream, reads, found);
        EventAppender appender = new EventAppender(json, locked, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> results = applier.applyAll(stream, appender, transactions, buffer);
        buffer.flush(locked, appender.cursor());
        return results;
    }
}
