package com.acme.catalog.resolver.bootstrap;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.bootstrap.ChunkCommitter.Diagnosis;

/**
 * What one import did, filled in as it runs; {@link #toJson()} is the machine-readable summary printed by the
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
    private Map<String, Object> failure;

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
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("chunk", chunk);
        f.put("firstIndex", events.isEmpty() ? null : events.get(0).index());
        f.put("lastIndex", events.isEmpty() ? null : events.get(events.size() - 1).index());
        List<String> ids = new ArrayList<>(events.size());
        events.forEach(e -> ids.add(e.id()));
        f.put("eventIds", ids);
        f.put("code", cause instanceof com.acme.catalog.contracts.ApiException a ? a.code().name() : null);
        f.put("sqlState", ChunkCommitter.sqlState(cause));
        f.put("message", ChunkCommitter.publicMessage(cause));
        if (diagnosis != null) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("index", diagnosis.index());
            d.put("eventId", diagnosis.eventId());
            d.put("sqlState", diagnosis.sqlState());
            d.put("code", diagnosis.code());
            d.put("message", diagnosis.message());
            f.put("firstFailingEvent", d);
        } else {
            f.put("firstFailingEvent", null);
        }
        f.put("committedChunks", chunks);
        f.put("committedEvents", committedEvents);
        f.put("action", committedEvents == 0
                ? "nothing was committed; fix the cause and run the import again"
                : "the stream holds a partial import (chunks 1-" + chunks + "); empty the destination (or use "
                        + "another stream), fix the cause and run the whole import again");
        this.failure = f;
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

    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status.name());
        m.put("tenant", stream.tenant());
        m.put("catalog", stream.catalog());
        m.put("epoch", epoch == 0 ? null : epoch);
        m.put("events", events);
        m.put("logicalTransactions", committedEvents);
        m.put("firstPosition", committedEvents == 0 ? null : position - committedEvents + 1);
        m.put("lastPosition", committedEvents == 0 ? null : position);
        m.put("chainDigest", chainDigest);
        m.put("inputBytes", inputBytes);
        m.put("inputSha256", sha256);
        m.put("chunks", chunkJson());
        m.put("commits", chunks);
        double seconds = totalNanos / 1e9;
        m.put("eventsPerSecond", seconds > 0 ? round(committedEvents / seconds) : null);
        m.put("commitsPerSecond", seconds > 0 ? round(chunks / seconds) : null);
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("validateMs", millis(validateNanos));
        t.put("parseMs", millis(parseNanos));
        if (pipelined) {
            // parse and prepare run on the preparing thread, overlapped with the writes; waitMs is what the
            // writing thread spent waiting for the next prepared chunk
            t.put("prepareMs", millis(prepareNanos));
            t.put("waitMs", millis(waitNanos));
        }
        t.put("writeMs", millis(writeNanos));
        t.put("commitMs", millis(commitNanos));
        t.put("analyzeMs", millis(analyzeNanos));
        t.put("analyzeRuns", analyzeRuns);
        t.put("diagnoseMs", millis(diagnoseNanos));
        t.put("totalMs", millis(totalNanos));
        // CPU of the importing thread: far below totalMs means waiting (database, fsync, a busy machine)
        t.put("importerCpuMs", millis(cpuNanos));
        if (pipelined) {
            t.put("preparerCpuMs", millis(preparerCpuNanos));
        }
        m.put("timings", t);
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("chunkEvents", options.chunkEvents());
        o.put("chunkBytes", options.chunkBytes());
        o.put("maxEventBytes", options.maxEventBytes());
        o.put("synchronousCommitOff", options.synchronousCommitOff());
        o.put("diagnoseFailedChunk", options.diagnoseFailedChunk());
        o.put("batchedStatements", options.batched());
        m.put("options", o);
        if (failure != null) {
            m.put("failure", failure);
        }
        return m;
    }

    private Map<String, Object> chunkJson() {
        int[] sizes = Arrays.copyOf(chunkSizes, chunks);
        Arrays.sort(sizes);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("count", chunks);
        c.put("minEvents", chunks == 0 ? null : sizes[0]);
        c.put("meanEvents", chunks == 0 ? null : round((double) committedEvents / chunks));
        c.put("p50Events", chunks == 0 ? null : percentile(sizes, 0.50));
        c.put("p95Events", chunks == 0 ? null : percentile(sizes, 0.95));
        c.put("maxEvents", chunks == 0 ? null : sizes[chunks - 1]);
        // power-of-two buckets: "1", "2-3", "4-7", ... "256-511"
        Map<String, Integer> histogram = new LinkedHashMap<>();
        for (int s : sizes) {
            int low = Integer.highestOneBit(s);
            String bucket = low == 1 ? "1" : low + "-" + (low * 2 - 1);
            histogram.merge(bucket, 1, Integer::sum);
        }
        c.put("sizeHistogram", histogram);
        return c;
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
