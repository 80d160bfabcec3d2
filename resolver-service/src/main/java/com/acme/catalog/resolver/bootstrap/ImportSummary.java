package com.acme.catalog.resolver.bootstrap;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The machine-readable summary of one import: answered by {@code POST …/bootstrap-import} (200, or as the
 * {@code import} member of a failed chunk's problem) and printed by the command line. Every field is present, an
 * unknown value as null, except {@code failure} (only after a failed chunk) and the pipelined timings.
 *
 * @param epoch            the epoch written; null before the first commit
 * @param firstPosition    the first position written; null when nothing was committed
 * @param eventsPerSecond  committed events over the whole import's wall time; null before it took any time
 * @param resetEpoch       with a reset: the new, empty epoch the stream was reset to under the fence (the import
 *                         wrote into it); null otherwise
 * @param skippedEvents    events of the file not written because they were already there: always 0 (an import
 *                         writes into an empty stream only, and writes every event or stops)
 * @param duplicateEvents  events of the file skipped as duplicates: always 0 (a file with a repeated id or
 *                         aggregate version is rejected before anything is written)
 * @param diagnosticFallbacks failed chunks replayed event by event ({@code diagnoseFailedChunk}): 0 or 1
 * @param outboxLagAtEnd   events of the stream its push consumers still had to be delivered when the import ended
 *                         (the relay held the stream while the fence was up); null when the import did not complete
 * @param readyMs          with {@code waitReady}: milliseconds from the import's end until the product served the
 *                         stream with equal checksums (or gave up); null otherwise
 * @param verification     with {@code waitReady}: what the product reported and how the checksums compared; null
 *                         otherwise
 */
public record ImportSummary(ImportReport.Status status, String tenant, String catalog, Long epoch, int events,
        long logicalTransactions, Long firstPosition, Long lastPosition, String chainDigest, long inputBytes,
        String inputSha256, Chunks chunks, int commits, Double eventsPerSecond, Double commitsPerSecond,
        Timings timings, Options options, Long resetEpoch, long skippedEvents, long duplicateEvents, int diagnosticFallbacks,
        Long outboxLagAtEnd, Double readyMs, Verification verification,
        @JsonInclude(JsonInclude.Include.NON_NULL) Failure failure) {

    /**
     * Committed chunk sizes: count, min/mean/percentiles/max (null without a chunk) and a histogram by power-of-two
     * bucket ({@code "1"}, {@code "2-3"}, {@code "4-7"}, …).
     */
    public record Chunks(int count, Integer minEvents, Double meanEvents, Integer p50Events, Integer p95Events,
            Integer maxEvents, Map<String, Integer> sizeHistogram) {
    }

    /**
     * Milliseconds by stage, one decimal. {@code prepareMs}, {@code waitMs} and {@code preparerCpuMs} only when chunks
     * were prepared on a second thread (then {@code waitMs} is what the writing thread waited for them).
     * {@code lockWaitMs}: taking the import fence, whose transaction locks the stream's cursor row as a write does and
     * so waits while a write holds it (and opens a new stream); the import lock itself never waits (a second importer
     * fails at once); chunks waiting behind refused writers count in {@code writeMs}.
     */
    public record Timings(double validateMs, double parseMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double prepareMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double waitMs, double writeMs, double commitMs,
            double analyzeMs, int analyzeRuns, double diagnoseMs, double totalMs, double importerCpuMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double preparerCpuMs, double lockWaitMs) {
    }

    /**
     * The options the import ran with; {@code batchedStatements} as in effect (never for one-event chunks);
     * {@code reset} the reason of a reset first, null without; {@code epochAbove} the epoch the import had to write
     * above, null for any.
     */
    public record Options(int chunkEvents, long chunkBytes, long maxEventBytes, boolean synchronousCommitOff,
            boolean diagnoseFailedChunk, boolean batchedStatements, String reset, Long epochAbove) {
    }

    /**
     * The chunk that failed (1-based) and its events; what the failure was; the first failing event when the chunk
     * was diagnosed (else null); what stays committed and what to do.
     */
    public record Failure(int chunk, Integer firstIndex, Integer lastIndex, List<String> eventIds, String code,
            String sqlState, String message, FailingEvent firstFailingEvent, int committedChunks,
            long committedEvents, String action) {

        public Failure {
            eventIds = List.copyOf(eventIds);
        }
    }

    /** The first event of a failed chunk that fails alone (the chunk replayed event by event). */
    public record FailingEvent(int index, String eventId, String sqlState, String code, String message) {
    }

    /**
     * What {@code waitReady} found: {@code ready} when the product reported the stream {@code CURRENT} in the import's
     * epoch at or past its last position and both checksum profiles were equal on both sides at one position; else
     * {@code reason} says which was not (the last answers are kept).
     *
     * @param productState     the product's completeness {@code state} last read (null: it never answered)
     * @param verifiedThrough  the product's {@code verifiedThrough} last read
     * @param checksums        per profile, whether the resolver's state-checksum and the product's
     *                         projection-checksum were equal, and at which position
     */
    public record Verification(boolean ready, String productUrl, String productState, Long productEpoch,
            Long verifiedThrough, Map<String, ChecksumComparison> checksums, String reason) {
    }

    /** One checksum profile on both sides: the position each answered at and whether their tables were equal. */
    public record ChecksumComparison(Long resolverPosition, Long productPosition, boolean equal) {
    }
}
