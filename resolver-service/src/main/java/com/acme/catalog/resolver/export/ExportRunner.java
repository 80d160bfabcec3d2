package com.acme.catalog.resolver.export;

import java.io.IOException;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore.StoredObject;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.export.ExportObserver.Step;
import com.acme.catalog.resolver.export.SnapshotExporter.Head;
import com.acme.catalog.resolver.export.SnapshotExporter.Snapshot;
import com.acme.catalog.resolver.retention.RetentionService;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs one export to its end (docs/design.md steps 3-4): snapshot and objects, then the pin moves from P to W under the
 * retention lock, the lease and epoch are checked again, the manifest is written and, in one transaction that
 * checks the lease a last time, the export turns READY. A lease that expires or is released, or an epoch change,
 * at any point aborts it: ABORTED, every object removed. Anything else fails it (FAILED, objects removed).
 */
@Component
class ExportRunner {

    private static final Logger log = LoggerFactory.getLogger(ExportRunner.class);
    /** Outcomes that mean "this export's premise is gone" rather than "something broke". */
    private static final Set<ProblemCode> ABORTING = Set.of(ProblemCode.LEASE_EXPIRED, ProblemCode.EPOCH_CHANGED,
            ProblemCode.CURSOR_STALE, ProblemCode.NOT_FOUND, ProblemCode.STREAM_FENCED);

    /** Refusals about the stream's data: a new export would meet them again. */
    private static final Set<ProblemCode> ABOUT_THE_DATA = Set.of(ProblemCode.CHAIN_BROKEN, ProblemCode.INVALID_EVENT);
    /** How deep {@link #aboutTheData} looks into a failure's causes. */
    private static final int MAX_DEPTH = 16;

    private final SnapshotExporter exporter;
    private final RetentionService retention;
    private final CursorRepository cursors;
    private final ExportRepository exports;
    private final ExportHousekeeping housekeeping;
    private final ObjectStore store;
    private final ExportMetrics metrics;
    private final ExportProperties properties;
    private final ObjectProvider<ExportObserver> observer;
    private final TransactionTemplate tx;
    private final TransactionTemplate outsideSnapshot;

    ExportRunner(SnapshotExporter exporter, RetentionService retention, CursorRepository cursors,
            ExportRepository exports, ExportHousekeeping housekeeping, ObjectStore store, ExportMetrics metrics,
            ExportProperties properties, ObjectProvider<ExportObserver> observer, PlatformTransactionManager tm) {
        this.exporter = exporter;
        this.retention = retention;
        this.cursors = cursors;
        this.exports = exports;
        this.housekeeping = housekeeping;
        this.store = store;
        this.metrics = metrics;
        this.properties = properties;
        this.observer = observer;
        this.tx = new TransactionTemplate(tm);
        // checks made while the snapshot is open must see the present, not the snapshot: their own transaction
        this.outsideSnapshot = new TransactionTemplate(tm);
        this.outsideSnapshot.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    void run(ExportJob job) {
        log.info("export {} of {} epoch {} started (lease {}, objects under {})", job.exportId(), job.stream(),
                job.epoch(), job.leaseId(), store.describe() + "/" + job.objectPrefix());
        ExportStatus outcome = ExportStatus.FAILED;
        try {
            publish(job);
            outcome = ExportStatus.READY;
        } catch (ApiException e) {
            outcome = ABORTING.contains(e.code()) ? ExportStatus.ABORTED : ExportStatus.FAILED;
            end(job, outcome, e.getMessage(), outcome == ExportStatus.FAILED && ABOUT_THE_DATA.contains(e.code()));
        } catch (ExportAbortedException e) {
            outcome = ExportStatus.ABORTED;
            end(job, outcome, e.getMessage());
        } catch (RuntimeException | IOException e) {
            // the database's or the object store's own words (and Java type names) go to the log only
            log.warn("export {} of {} failed", job.exportId(), job.stream(), e);
            boolean aboutTheData = aboutTheData(e);
            end(job, ExportStatus.FAILED, (aboutTheData ? "the export found the stream's stored data damaged"
                    : "the export failed") + "; see the resolver's log for export " + job.exportId(), aboutTheData);
        } catch (Error e) {
            log.error("export {} of {} failed", job.exportId(), job.stream(), e);
            end(job, ExportStatus.FAILED, "the export failed; see the resolver's log for export " + job.exportId());
            throw e;
        } finally {
            metrics.finished(job.stream(), outcome, System.nanoTime() - job.startedNanos());
        }
    }

    private void publish(ExportJob job) throws IOException {
        job.phase("SNAPSHOT");
        Snapshot snap = exporter.write(job, new Progress(job));
        observe(job, Step.OBJECTS_WRITTEN);

        job.phase("PIN");
        retention.advancePin(job.leaseId(), snap.cursor());
        requireOpenEpoch(job);
        retention.requireLiveLease(job.leaseId());

        job.phase("MANIFEST");
        String manifestKey = job.objectPrefix() + ExportFormat.MANIFEST_NAME;
        ExportManifest manifest = new ExportManifest(job.exportId().toString(), job.stream().tenant(),
                job.stream().catalog(), snap.epoch(), snap.cursor(), snap.chainDigest(), Instant.now(),
                AcceptedStateChecksum.PROFILE, snap.stateChecksum(), snap.objects());
        byte[] json = manifest.toJson();
        store.put(manifestKey, ExportFormat.MANIFEST_CONTENT_TYPE, out -> out.write(json));

        Boolean ready = tx.execute(status -> {
            retention.requireLiveLease(job.leaseId());
            requireOpenEpoch(job);
            return exports.markReady(job.exportId(), manifestKey, job.rows(), job.bytes());
        });
        if (!Boolean.TRUE.equals(ready)) {
            throw new ExportAbortedException("export " + job.exportId() + " was ended by another instance "
                    + "(no heartbeat for export.stale-after) before it could turn READY");
        }
        log.info("export {} of {} READY: epoch {} cursor {}, {} rows, {} bytes in {} ms, manifest {}",
                job.exportId(), job.stream(), snap.epoch(), snap.cursor(), job.rows(), job.bytes(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - job.startedNanos()), manifestKey);
        housekeeping.retireBeyondKept(job.stream());
    }

    private void end(ExportJob job, ExportStatus status, String error) {
        end(job, status, error, false);
    }

    /**
     * Removes the export's objects, then ends its row, so a client that sees ABORTED or FAILED finds nothing.
     *
     * @param permanent the failure is about the stream's data (the export's status says so: a client does not ask
     *                  for a new export that would fail the same way)
     */
    private void end(ExportJob job, ExportStatus status, String error, boolean permanent) {
        log.warn("export {} of {} {}{}: {}", job.exportId(), job.stream(), status, permanent ? " (permanent)" : "",
                error);
        housekeeping.deleteObjects(job.exportId(), job.objectPrefix());
        try {
            exports.markEnded(job.exportId(), status, error, permanent);
        } catch (RuntimeException e) {
            log.error("export {}: could not record {} ({}); the stale sweep will fail it", job.exportId(), status,
                    e.toString());
        }
    }

    /**
     * @return whether {@code failure} is about the stream's stored data (a SQLState of class 22 or 23, {@code XX001}
     *         data corrupted, {@code XX002} index corrupted anywhere in its causes): a new export would fail the same
     *         way. Anything else (the database or object store out of reach, a disk full, a bug) is not.
     */
    static boolean aboutTheData(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
            if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("22") || state.startsWith("23") || state.equals("XX001")
                        || state.equals("XX002")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The stream's open cursor must still be in the export's epoch (a restore fences it and opens a new one). */
    private void requireOpenEpoch(ExportJob job) {
        long open = cursors.read(job.stream()).map(c -> c.epoch()).orElse(0L);
        if (open != job.epoch()) {
            throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream %s is now in epoch %s; export %s read epoch %d"
                    .formatted(job.stream(), open == 0 ? "none (fenced)" : open, job.exportId(), job.epoch()));
        }
    }

    private void observe(ExportJob job, Step step) {
        ExportObserver o = observer.getIfAvailable();
        if (o != null) {
            o.reached(job.exportId(), step);
        }
    }

    /** Progress counters, and the lease and epoch re-checks made (outside the snapshot) while rows stream. */
    private final class Progress implements SnapshotExporter.Checkpoint {
        private final ExportJob job;
        private final long checkEveryNanos = properties.leaseCheckInterval().toNanos();
        private long lastCheck = System.nanoTime();
        private long sinceClock;

        Progress(ExportJob job) {
            this.job = job;
        }

        @Override
        public void snapshotOpened(Head head) {
            outsideSnapshot.executeWithoutResult(s -> exports.snapshotRead(job.exportId(), head.position(),
                    head.chainDigest()));
            log.info("export {} of {}: snapshot at epoch {} cursor {}", job.exportId(), job.stream(), head.epoch(),
                    head.position());
            observe(job, Step.SNAPSHOT_OPENED);
        }

        @Override
        public void beforeTable(ExportTable table) {
            job.phase("SNAPSHOT " + table);
            check();
        }

        @Override
        public void row() {
            job.addRow();
            if (++sinceClock >= 1024) {
                sinceClock = 0;
                if (System.nanoTime() - lastCheck >= checkEveryNanos) {
                    check();
                }
            }
        }

        @Override
        public void tableWritten(ExportTable table, StoredObject stored, long rows) {
            job.addStoredBytes(stored.bytes());
            log.info("export {} of {}: {} written, {} rows, {} bytes", job.exportId(), job.stream(), table, rows,
                    stored.bytes());
            observe(job, Step.TABLE_WRITTEN);
        }

        private void check() {
            lastCheck = System.nanoTime();
            outsideSnapshot.executeWithoutResult(s -> {
                retention.requireLiveLease(job.leaseId());
                requireOpenEpoch(job);
            });
        }
    }
}
