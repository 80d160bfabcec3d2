package com.acme.catalog.resolver.bootstrap;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.resolver.bootstrap.EventsFileReader.RawEvent;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChunkWriter;
import com.acme.catalog.resolver.stream.Cursor;

import tools.jackson.databind.ObjectMapper;

/**
 * The second pass of an import on a thread of its own: reads the validated file again, cuts it into chunks (input
 * order, count and byte targets) and prepares each chunk's rows ({@link ChunkWriter#prepare}: positions, revisions,
 * transaction ids, wire text, chain digests, statement parameters) from the cursor the previous chunk will leave,
 * while the importing thread writes and commits the chunk before. At most {@link #DEPTH} prepared chunks wait, so
 * memory stays bounded by a few chunks whatever the file size. Nothing here touches the database.
 */
final class ChunkPreparer implements Runnable, AutoCloseable {

    /** Prepared chunks that may wait for the writer. */
    static final int DEPTH = 2;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final ObjectMapper json;
    private final ChunkWriter chunkWriter;
    private final Path file;
    private final StreamId stream;
    private final Cursor start;
    private final ImportOptions options;
    private final EventsValidator.Aggregates aggregates;
    private final BlockingQueue<Object> ready = new ArrayBlockingQueue<>(DEPTH);
    private volatile boolean closed;
    private Thread thread;

    ChunkPreparer(ObjectMapper json, ChunkWriter chunkWriter, Path file, StreamId stream, Cursor start,
            ImportOptions options, EventsValidator.Aggregates aggregates) {
        this.json = json;
        this.chunkWriter = chunkWriter;
        this.file = file;
        this.stream = stream;
        this.start = start;
        this.options = options;
        this.aggregates = aggregates;
    }

    void start() {
        thread = DaemonThreads.newThread(this, "bootstrap-prepare-" + stream);
        thread.start();
    }

    @Override
    public void run() {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        try (EventsFileReader reader = new EventsFileReader(json, file)) {
            Cursor from = start;
            List<SnapshotEvent> chunk = new ArrayList<>(options.chunkEvents());
            long chunkBytes = 0;
            long parseNanos = 0;
            while (!closed) {
                long t0 = System.nanoTime();
                RawEvent raw = reader.next();
                SnapshotEvent e = raw == null ? null : SnapshotEvent.from(raw, options.maxEventBytes());
                parseNanos += System.nanoTime() - t0;
                boolean full = !chunk.isEmpty() && (e == null || chunk.size() >= options.chunkEvents()
                        || chunkBytes + e.bytes() > options.chunkBytes());
                if (full) {
                    long t1 = System.nanoTime();
                    List<List<Change>> singletons = new ArrayList<>(chunk.size());
                    for (SnapshotEvent s : chunk) {
                        singletons.add(List.of(s.change()));
                    }
                    ChunkWriter.Prepared prepared = chunkWriter.prepare(stream, from, singletons,
                            aggregates.before(chunk), Instant.now());
                    hand(new Chunk(List.copyOf(chunk), prepared, parseNanos, System.nanoTime() - t1));
                    from = prepared.to();
                    chunk.clear();
                    chunkBytes = 0;
                    parseNanos = 0;
                }
                if (e == null) {
                    hand(new End(reader.sha256(), THREADS.getCurrentThreadCpuTime() - cpuStart));
                    return;
                }
                chunk.add(e);
                chunkBytes += e.bytes();
            }
        } catch (Throwable t) {
            hand(new Failed(t, THREADS.getCurrentThreadCpuTime() - cpuStart));
        }
    }

    /** Waits until the writer takes it, or the writer gave up. */
    private void hand(Object item) {
        try {
            while (!closed) {
                if (ready.offer(item, 100, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return the next prepared chunk, or the end of the file
     * @throws RuntimeException what stopped the preparation (e.g. the file no longer parses)
     */
    Object next() {
        Object item;
        try {
            item = ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the next chunk", e);
        }
        if (item instanceof Failed f) {
            throw f.cause() instanceof RuntimeException r ? r : new IllegalStateException(f.cause());
        }
        return item;
    }

    /** Stops preparing and lets the thread end (it closes the file). */
    @Override
    public void close() {
        closed = true;
        ready.clear();
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A prepared chunk, with the nanoseconds spent parsing its events and preparing its rows. */
    record Chunk(List<SnapshotEvent> events, ChunkWriter.Prepared prepared, long parseNanos, long prepareNanos) {
    }

    /** The file was read to its end: its SHA-256 and the CPU time of the preparing thread. */
    record End(String sha256, long cpuNanos) {
    }

    private record Failed(Throwable cause, long cpuNanos) {
    }
}
