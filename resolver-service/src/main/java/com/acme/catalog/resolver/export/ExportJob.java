package com.acme.catalog.resolver.export;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;

/** One running export on this instance: what it works on and its progress counters (read by the heartbeat). */
final class ExportJob {

    private final UUID exportId;
    private final StreamId stream;
    private final UUID leaseId;
    private final long epoch;
    private final String objectPrefix;
    private final long startedNanos = System.nanoTime();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private volatile String phase = "QUEUED";
    private volatile long lastLoggedNanos = startedNanos;

    ExportJob(UUID exportId, StreamId stream, UUID leaseId, long epoch, String objectPrefix) {
        this.exportId = exportId;
        this.stream = stream;
        this.leaseId = leaseId;
        this.epoch = epoch;
        this.objectPrefix = objectPrefix;
    }

    UUID exportId() {
        return exportId;
    }

    StreamId stream() {
        return stream;
    }

    UUID leaseId() {
        return leaseId;
    }

    long epoch() {
        return epoch;
    }

    String objectPrefix() {
        return objectPrefix;
    }

    long startedNanos() {
        return startedNanos;
    }

    String phase() {
        return phase;
    }

    void phase(String phase) {
        this.phase = phase;
    }

    /** Data rows streamed so far, over all tables. */
    long rows() {
        return rows.get();
    }

    /** Bytes of finished objects as stored (compressed). */
    long bytes() {
        return bytes.get();
    }

    void addRow() {
        rows.incrementAndGet();
    }

    void addStoredBytes(long n) {
        bytes.addAndGet(n);
    }

    /** True at most once per {@code intervalNanos}: time to log progress again. */
    boolean logDue(long intervalNanos) {
        long now = System.nanoTime();
        if (now - lastLoggedNanos < intervalNanos) {
            return false;
        }
        lastLoggedNanos = now;
        return true;
    }
}
