package com.acme.catalog.resolver.bootstrap;

/**
 * How one bootstrap import packs events into physical commits. Chunk limits decide commit frequency only: every
 * event stays its own logical transaction whatever they are.
 *
 * @param chunkEvents          events per physical commit, 1 to {@link #MAX_CHUNK_EVENTS}; 1 is the
 *                             one-commit-per-event reference path
 * @param chunkBytes           a chunk stops before its events' input bytes would pass this (a larger single event
 *                             still gets a chunk of its own)
 * @param maxEventBytes        an event larger than this in the input rejects the file
 * @param synchronousCommitOff {@code SET LOCAL synchronous_commit = off} in each chunk (empty destination only)
 * @param diagnoseFailedChunk  after a chunk fails, replay it one event at a time in a throwaway transaction
 * @param batchedStatements    chunks of more than one event use multi-row statements; off replays the reference
 *                             statements inside each chunk (to measure what batching adds)
 * @param resetReason          non-null: under the import fence, reset the stream to a new empty epoch first (the
 *                             reason is recorded with the epoch), so a stream holding a failed import's partial state
 *                             is imported again without anyone writing between; null: the stream must be empty
 * @param epochAbove           non-null: the import writes an epoch above this one; under the fence the (empty) stream
 *                             is reset, each reset issuing the next epoch, until its open epoch is above it (a stream
 *                             moved from another resolver database lands above the epoch its products knew there)
 */
public record ImportOptions(int chunkEvents, long chunkBytes, long maxEventBytes, boolean synchronousCommitOff,
        boolean diagnoseFailedChunk, boolean batchedStatements, String resetReason, Long epochAbove) {

    public static final int DEFAULT_CHUNK_EVENTS = 100;
    public static final int MAX_CHUNK_EVENTS = 500;
    public static final long DEFAULT_CHUNK_BYTES = 16L * 1024 * 1024;
    public static final long DEFAULT_MAX_EVENT_BYTES = 1024L * 1024;

    public ImportOptions {
        if (chunkEvents < 1 || chunkEvents > MAX_CHUNK_EVENTS) {
            throw new IllegalArgumentException("chunk events must be 1-" + MAX_CHUNK_EVENTS + ", got " + chunkEvents);
        }
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("chunk bytes must be >= 1, got " + chunkBytes);
        }
        if (maxEventBytes < 1) {
            throw new IllegalArgumentException("max event bytes must be >= 1, got " + maxEventBytes);
        }
        if (resetReason != null && (resetReason.isBlank() || resetReason.length() > 500)) {
            throw new IllegalArgumentException("the reset reason must be 1-500 characters");
        }
        if (epochAbove != null && (epochAbove < 0 || epochAbove > 1_000_000)) {
            throw new IllegalArgumentException("epochAbove must be 0-1000000, got " + epochAbove);
        }
    }

    public static ImportOptions defaults() {
        return new ImportOptions(DEFAULT_CHUNK_EVENTS, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_EVENT_BYTES, false, false,
                true, null, null);
    }

    public ImportOptions withChunkEvents(int n) {
        return new ImportOptions(n, chunkBytes, maxEventBytes, synchronousCommitOff, diagnoseFailedChunk,
                batchedStatements, resetReason, epochAbove);
    }

    public ImportOptions withChunkBytes(long n) {
        return new ImportOptions(chunkEvents, n, maxEventBytes, synchronousCommitOff, diagnoseFailedChunk,
                batchedStatements, resetReason, epochAbove);
    }

    public ImportOptions withMaxEventBytes(long n) {
        return new ImportOptions(chunkEvents, chunkBytes, n, synchronousCommitOff, diagnoseFailedChunk,
                batchedStatements, resetReason, epochAbove);
    }

    public ImportOptions withSynchronousCommitOff(boolean on) {
        return new ImportOptions(chunkEvents, chunkBytes, maxEventBytes, on, diagnoseFailedChunk, batchedStatements,
                resetReason, epochAbove);
    }

    public ImportOptions withDiagnoseFailedChunk(boolean on) {
        return new ImportOptions(chunkEvents, chunkBytes, maxEventBytes, synchronousCommitOff, on, batchedStatements,
                resetReason, epochAbove);
    }

    public ImportOptions withBatchedStatements(boolean on) {
        return new ImportOptions(chunkEvents, chunkBytes, maxEventBytes, synchronousCommitOff, diagnoseFailedChunk,
                on, resetReason, epochAbove);
    }

    /** The same options with a reset first ({@link #resetReason}); null: none. */
    public ImportOptions withReset(String reason) {
        return new ImportOptions(chunkEvents, chunkBytes, maxEventBytes, synchronousCommitOff, diagnoseFailedChunk,
                batchedStatements, reason, epochAbove);
    }

    /** The same options writing an epoch above {@code epoch} ({@link #epochAbove}); null: any. */
    public ImportOptions withEpochAbove(Long epoch) {
        return new ImportOptions(chunkEvents, chunkBytes, maxEventBytes, synchronousCommitOff, diagnoseFailedChunk,
                batchedStatements, resetReason, epoch);
    }

    /** True when chunks go through the batched statements of the stream package's ChunkWriter. */
    boolean batched() {
        return batchedStatements && chunkEvents > 1;
    }
}
