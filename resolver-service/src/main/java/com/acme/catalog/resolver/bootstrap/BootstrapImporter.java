package com.acme.catalog.resolver.bootstrap;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.bootstrap.ChunkCommitter.Committed;
import com.acme.catalog.resolver.bootstrap.ChunkCommitter.Diagnosis;
import com.acme.catalog.resolver.bootstrap.EventsFileReader.RawEvent;
import com.acme.catalog.resolver.stream.ChunkWriter;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;
import com.acme.catalog.resolver.stream.StreamMetrics;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import tools.jackson.databind.ObjectMapper;

/**
 * Imports a snapshot-derived events.json into an empty stream: take the stream's import lock, check the stream is
 * empty, validate the whole file (first streaming pass), then read it again and commit it in chunks of singleton
 * logical transactions, in input order, so event {@code i} lands at position {@code i + 1}. Fail-fast: the first
 * failing chunk rolls back whole and stops the import.
 */
@Service
public class BootstrapImporter {

    private static final Logger log = LoggerFactory.getLogger(BootstrapImporter.class);
    /** Planner statistics are refreshed after this many events, then each time the import has grown 4-fold. */
    static final long FIRST_ANALYZE = 1000;
    static final long ANALYZE_GROWTH = 4;

    private final DataSource dataSource;
    private final DestinationRepository destination;
    private final ChunkCommitter committer;
    private final PlannerStatistics statistics;
    private final CursorRepository cursors;
    private final StreamMetrics metrics;
    private final ObjectMapper json;
    private final ChunkWriter chunkWriter;
    private final MaintenanceSwitch maintenance;

    BootstrapImporter(DataSource dataSource, DestinationRepository destination, ChunkCommitter committer,
            PlannerStatistics statistics, CursorRepository cursors, StreamMetrics metrics, ObjectMapper json,
            ChunkWriter chunkWriter, MaintenanceSwitch maintenance) {
        this.chunkWriter = chunkWriter;
        this.maintenance = maintenance;
        this.dataSource = dataSource;
        this.destination = destination;
        this.committer = committer;
        this.statistics = statistics;
        this.cursors = cursors;
        this.metrics = metrics;
        this.json = json;
    }

    /**
     * @return the summary of a completed import
     * @throws ApiException            {@code IMPORT_IN_PROGRESS} or {@code DESTINATION_NOT_EMPTY}, nothing written
     * @throws RejectedEventException  the file is bad, nothing written
     * @throws ImportFailedException   a chunk failed; earlier chunks stay committed (see its report)
     */
    public ImportReport importFile(StreamId stream, Path file, ImportOptions options, ImportListener listener) {
        long started = System.nanoTime();
        ImportReport report = new ImportReport(stream, options);
        report.startCpuClock();
        if (maintenance.status().enabled()) {
            // early and with nothing written; every chunk's cursor lock checks again (docs/epochs.md)
            throw MaintenanceSwitch.refused("the bootstrap import");
        }
        try (ImportLock lock = ImportLock.acquire(dataSource, stream)) {
            destination.requireEmpty(stream);
            listener.destinationChecked();
            EventsValidator.Validated validated = new EventsValidator(json).validate(file, options.maxEventBytes());
            report.validated(validated, System.nanoTime() - started);
            listener.validated(validated.events());
            if (options.batched()) {
                writePipelined(stream, file, options, listener, report, validated, started);
            } else {
                write(stream, file, options, listener, report, validated, started);
            }
            Cursor cursor = cursors.read(stream).orElseThrow();
            report.completed(cursor.chainDigest() == null ? ChainDigest.ZERO : cursor.chainDigest(),
                    System.nanoTime() - started);
            metrics.observePosition(stream, cursor.position());
            log.info("bootstrap import into {}: {} events in {} chunks", stream, report.committedEvents(),
                    report.commits());
            return report;
        }
    }

    /**
     * The second pass for chunks of more than one event: a {@link ChunkPreparer} thread reads the file again and
     * prepares chunk k+1 while this thread writes and commits chunk k. One database transaction at a time, in input
     * order. What the write path would read under the cursor lock comes from the validated file (the destination
     * was empty and every chunk checks that the cursor is exactly where the previous one left it), so a chunk
     * reads nothing and needs no planner statistics.
     */
    private void writePipelined(StreamId stream, Path file, ImportOptions options, ImportListener listener,
            ImportReport report, EventsValidator.Validated validated, long started) {
        Cursor start = cursors.read(stream).orElseGet(() -> cursors.firstCursor(stream));
        long position = start.position();
        int chunkNumber = 0;
        String sha256;
        try (ChunkPreparer preparer = new ChunkPreparer(json, chunkWriter, file, stream, start, options,
                validated.aggregates())) {
            preparer.start();
            while (true) {
                long t0 = System.nanoTime();
                Object next;
                try {
                    next = preparer.next();
                } catch (RuntimeException e) {
                    report.failed(chunkNumber + 1, List.of(), e, null, 0, System.nanoTime() - started);
                    throw new ImportFailedException(report, chunkNumber + 1, e);
                }
                long waited = System.nanoTime() - t0;
                if (next instanceof ChunkPreparer.End end) {
                    sha256 = end.sha256();
                    report.preparerCpu(end.cpuNanos());
                    break;
                }
                ChunkPreparer.Chunk chunk = (ChunkPreparer.Chunk) next;
                report.prepared(chunk.parseNanos(), chunk.prepareNanos(), waited);
                chunkNumber++;
                position = commitPrepared(stream, chunk, chunkNumber, options, report, started);
                listener.chunkCommitted(chunkNumber, position, validated.events());
            }
        }
        if (position != validated.events() || !sha256.equals(validated.sha256())) {
            ApiException changed = new ApiException(ProblemCode.INVALID_BODY, "the file changed between "
                    + "validation and writing (" + position + " events written, " + validated.events()
                    + " validated); the stream holds what was written");
            report.failed(chunkNumber, List.of(), changed, null, 0, System.nanoTime() - started);
            throw new ImportFailedException(report, chunkNumber, changed);
        }
    }

    private long commitPrepared(StreamId stream, ChunkPreparer.Chunk chunk, int chunkNumber, ImportOptions options,
            ImportReport report, long started) {
        try {
            Committed c = committer.commitPrepared(stream, chunk.events(), chunk.prepared(), options);
            long last = c.results().get(c.results().size() - 1).lastPosition();
            report.chunkCommitted(chunk.events().size(), c.results().get(0).epoch(), last, c.writeNanos(),
                    c.commitNanos());
            return last;
        } catch (RuntimeException failure) {
            throw failed(stream, chunk.events(), chunkNumber, chunk.prepared().from().position(), options, report,
                    started, failure);
        }
    }

    private void write(StreamId stream, Path file, ImportOptions options, ImportListener listener,
            ImportReport report, EventsValidator.Validated validated, long started) {
        List<SnapshotEvent> chunk = new ArrayList<>(options.chunkEvents());
        long chunkBytes = 0;
        long position = 0;
        long analyzeAt = FIRST_ANALYZE;
        int chunkNumber = 0;
        try (EventsFileReader reader = new EventsFileReader(json, file)) {
            while (true) {
                long t0 = System.nanoTime();
                RawEvent raw = reader.next();
                SnapshotEvent e = raw == null ? null : SnapshotEvent.from(raw, options.maxEventBytes());
                report.parsed(System.nanoTime() - t0);
                boolean full = !chunk.isEmpty() && (e == null || chunk.size() >= options.chunkEvents()
                        || chunkBytes + e.bytes() > options.chunkBytes());
                if (full) {
                    chunkNumber++;
                    position = commit(stream, chunk, chunkNumber, position, options, report, started);
                    listener.chunkCommitted(chunkNumber, position, validated.events());
                    chunk.clear();
                    chunkBytes = 0;
                    if (position >= analyzeAt && e != null) {
                        long t1 = System.nanoTime();
                        statistics.refresh();
                        report.analyzed(System.nanoTime() - t1);
                        analyzeAt = position * ANALYZE_GROWTH;
                    }
                }
                if (e == null) {
                    break;
                }
                chunk.add(e);
                chunkBytes += e.bytes();
            }
            if (position != validated.events() || !reader.sha256().equals(validated.sha256())) {
                ApiException changed = new ApiException(ProblemCode.INVALID_BODY, "the file changed between "
                        + "validation and writing (" + position + " events written, " + validated.events()
                        + " validated); the stream holds what was written");
                report.failed(chunkNumber, List.of(), changed, null, 0, System.nanoTime() - started);
                throw new ImportFailedException(report, chunkNumber, changed);
            }
        }
    }

    private long commit(StreamId stream, List<SnapshotEvent> chunk, int chunkNumber, long position,
            ImportOptions options, ImportReport report, long started) {
        try {
            Committed c = committer.commit(stream, chunk, position, options);
            long last = c.results().get(c.results().size() - 1).lastPosition();
            report.chunkCommitted(chunk.size(), c.results().get(0).epoch(), last, c.writeNanos(), c.commitNanos());
            return last;
        } catch (RuntimeException failure) {
            throw failed(stream, chunk, chunkNumber, position, options, report, started, failure);
        }
    }

    /** Diagnoses (if asked) and reports a failed chunk; the import stops. */
    private ImportFailedException failed(StreamId stream, List<SnapshotEvent> chunk, int chunkNumber, long position,
            ImportOptions options, ImportReport report, long started, RuntimeException failure) {
        Diagnosis diagnosis = null;
        long t0 = System.nanoTime();
        if (options.diagnoseFailedChunk()) {
            try {
                diagnosis = committer.diagnose(stream, chunk, position);
            } catch (RuntimeException e) {
                log.warn("diagnosing failed chunk {} of the import into {} failed too: {}", chunkNumber, stream,
                        e.getMessage());
            }
        }
        report.failed(chunkNumber, List.copyOf(chunk), failure, diagnosis, System.nanoTime() - t0,
                System.nanoTime() - started);
        log.warn("bootstrap import into {} stopped at chunk {} (events {}-{}): {}", stream, chunkNumber,
                chunk.get(0).index(), chunk.get(chunk.size() - 1).index(), ChunkCommitter.rootMessage(failure));
        return new ImportFailedException(report, chunkNumber, failure);
    }
}
