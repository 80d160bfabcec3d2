package com.acme.catalog.resolver.bootstrap;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.db.SqlStates;
import com.acme.catalog.resolver.bootstrap.ChunkCommitter.Diagnosis;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * What one import did, filled in as it runs; {@link #summary()} is the machine-readable summary printed by the
 * command line and answered by the REST endpoint. Not thread-safe: one import, one thread.
 */
public final class ImportReport {

    /** COMPLETED: every event committed. FAILED: stopped at a chunk; earlier chunks stay committed. */
    public enum Status { COMPLETED, FAILED }

    private final StreamId stream;
    private final ImportOptions options;
    private Status status = Status.FAILED;
    private int events;
    private long inputBytes;
    private String sha256;
    private long epoch;
    private long position;
    private String chainDigest;
    private int[] chunkSizes = new int[64];
    private int chunks;
    private long committedEvents;
    private long validateNanos;
    private long parseNanos;
    private long prepareNanos;
    private long waitNanos;
    private long preparerCpuNanos;
    private boolean pipelined;
    private long writeNanos;
    private long commitNanos;
    private long diagnoseNanos;
    private long analyzeNanos;
    private int analyzeRuns;
    private long totalNanos;
    private long cpuStart = -1;
    private long cpuNanos;
    private ImportSummary.Failure failure;

    ImportReport(StreamId stream, ImportOptions options) {
        this.stream = stream;
        this.options = options;
    }

    /** Starts measuring the CPU time of the importing thread (where supported). */
    void startCpuClock() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads.isCurrentThreadCpuTimeSupported()) {
            cpuStart = threads.getCurrentThreadCpuTime();
        }
    }

    private void stopCpuClock() {
        if (cpuStart >= 0) {
            cpuNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuStart;
        }
    }

    void validated(EventsValidator.Validated v, long nanos) {
        events = v.events();
        inputBytes = v.bytes();
        sha256 = v.sha256();
        validateNanos = nanos;
    }

    /** A chunk prepared on the preparing thread: its parse and prepare time, and how long the writer waited. */
    void prepared(long parseNanos, long prepareNanos, long waitNanos) {
        this.pipelined = true;
        this.parseNanos += parseNanos;
        this.prepareNanos += prepareNanos;
        this.waitNanos += waitNanos;
    }

    void preparerCpu(long nanos) {
        preparerCpuNanos = nanos;
    }

    void parsed(long nanos) {
        parseNanos += nanos;
    }

    void analyzed(long nanos) {
        analyzeNanos += nanos;
        analyzeRuns++;
    }

    void chunkCommitted(int size, long epoch, long lastPosition, long writeNanos, long commitNanos) {
        if (chunks == chunkSizes.length) {
            chunkSizes = Arrays.copyOf(chunkSizes, chunks * 2);
        }
        chunkSizes[chunks++] = size;
        committedEvents += size;
        this.epoch = epoch;
        this.position = lastPosition;
        this.writeNanos += writeNanos;
        this.commitNanos += commitNanos;
    }

    void completed(String chainDigest, long totalNanos) {
        this.status = Status.COMPLETED;
        this.chainDigest = chainDigest;
        this.totalNanos = totalNanos;
        stopCpuClock();
    }

    void failed(int chunk, List<SnapshotEvent> events, RuntimeException cause, Diagnosis diagnosis,
            long diagnoseNanos, long totalNanos) {
        this.status = Status.FAILED;
        this.diagnoseNanos = diagnoseNanos;
        this.totalNanos = totalNanos;
        stopCpuClock();
        List<String> ids = new ArrayList<>(events.size());
        events.forEach(e -> ids.add(e.id()));
        ImportSummary.FailingEvent first = diagnosis == null ? null : new ImportSummary.FailingEvent(
                diagnosis.index(), diagnosis.eventId(), diagnosis.sqlState(), diagnosis.code(), diagnosis.message());
        String action = committedEvents == 0
                ? "nothing was committed; fix the cause and run the import again"
                : "the stream holds a partial import (chunks 1-" + chunks + "); empty the destination (or use "
                        + "another stream), fix the cause and run the whole import again";
        this.failure = new ImportSummary.Failure(chunk, events.isEmpty() ? null : events.get(0).index(),
                events.isEmpty() ? null : events.get(events.size() - 1).index(), ids,
                cause instanceof com.acme.catalog.contracts.ApiException a ? a.code().name() : null,
                SqlStates.of(cause), ChunkCommitter.publicMessage(cause), first, chunks, committedEvents,
                action);
    }

    public Status status() {
        return status;
    }

    public long committedEvents() {
        return committedEvents;
    }

    public int commits() {
        return chunks;
    }

    /** @return what the import did so far (the whole import once it completed or failed) */
    public ImportSummary summary() {
        double seconds = totalNanos / 1e9;
        return new ImportSummary(status, stream.tenant(), stream.catalog(), epoch == 0 ? null : epoch, events,
                committedEvents, committedEvents == 0 ? null : position - committedEvents + 1,
                committedEvents == 0 ? null : position, chainDigest, inputBytes, sha256, chunkStats(), chunks,
                seconds > 0 ? round(committedEvents / seconds) : null, seconds > 0 ? round(chunks / seconds) : null,
                timings(), new ImportSummary.Options(options.chunkEvents(), options.chunkBytes(),
                        options.maxEventBytes(), options.synchronousCommitOff(), options.diagnoseFailedChunk(),
                        options.batched()), failure);
    }

    private static final JsonMapper MAP_VIEW = JsonMapper.builder().build();

    /** @return {@link #summary()} as a map of its JSON members, for callers that look members up by name */
    public Map<String, Object> toJson() {
        return MAP_VIEW.convertValue(summary(), new TypeReference<LinkedHashMap<String, Object>>() { });
    }

    private ImportSummary.Timings timings() {
        // parse and prepare run on the preparing thread, overlapped with the writes; waitMs is what the writing
        // thread spent waiting for the next prepared chunk
        // CPU of the importing thread: far below totalMs means waiting (database, fsync, a busy machine)
        return new ImportSummary.Timings(millis(validateNanos), millis(parseNanos),
                pipelined ? millis(prepareNanos) : null, pipelined ? millis(waitNanos) : null, millis(writeNanos),
                millis(commitNanos), millis(analyzeNanos), analyzeRuns, millis(diagnoseNanos), millis(totalNanos),
                millis(cpuNanos), pipelined ? millis(preparerCpuNanos) : null);
    }

    private ImportSummary.Chunks chunkStats() {
        int[] sizes = Arrays.copyOf(chunkSizes, chunks);
        Arrays.sort(sizes);
        // power-of-two buckets: "1", "2-3", "4-7", ... "256-511"
        Map<String, Integer> histogram = new LinkedHashMap<>();
        for (int s : sizes) {
            int low = Integer.highestOneBit(s);
            String bucket = low == 1 ? "1" : low + "-" + (low * 2 - 1);
            histogram.merge(bucket, 1, Integer::sum);
        }
        boolean none = chunks == 0;
        return new ImportSummary.Chunks(chunks, none ? null : sizes[0],
                none ? null : round((double) committedEvents / chunks), none ? null : percentile(sizes, 0.50),
                none ? null : percentile(sizes, 0.95), none ? null : sizes[chunks - 1], histogram);
    }

    private static int percentile(int[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(p * sorted.length) - 1))];
    }

    private static double millis(long nanos) {
        return round(nanos / 1e6);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
