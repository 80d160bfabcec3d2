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
 */
public record ImportSummary(ImportReport.Status status, String tenant, String catalog, Long epoch, int events,
        long logicalTransactions, Long firstPosition, Long lastPosition, String chainDigest, long inputBytes,
        String inputSha256, Chunks chunks, int commits, Double eventsPerSecond, Double commitsPerSecond,
        Timings timings, Options options, @JsonInclude(JsonInclude.Include.NON_NULL) Failure failure) {

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
     */
    public record Timings(double validateMs, double parseMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double prepareMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double waitMs, double writeMs, double commitMs,
            double analyzeMs, int analyzeRuns, double diagnoseMs, double totalMs, double importerCpuMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double preparerCpuMs) {
    }

    /** The options the import ran with; {@code batchedStatements} as in effect (never for one-event chunks). */
    public record Options(int chunkEvents, long chunkBytes, long maxEventBytes, boolean synchronousCommitOff,
            boolean diagnoseFailedChunk, boolean batchedStatements) {
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
}
