package com.acme.catalog.resolver.export;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.export.ExportRepository.ExportRow;
import com.acme.catalog.resolver.retention.Lease;
import com.acme.catalog.resolver.retention.RetentionService;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Service;

/**
 * Accepts export requests and runs them on a bounded pool; every fact about an export is in its row, so any
 * instance answers for it. While a job runs here, a heartbeat writes its progress to the row every
 * {@code export.progress-interval}.
 */
@Service
class ExportService implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ExportService.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final RetentionService retention;
    private final CursorRepository cursors;
    private final ExportRepository exports;
    private final ExportRunner runner;
    private final ObjectStore store;
    private final ExportProperties properties;
    private final String instance;
    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService heartbeat;
    private final Map<UUID, ExportJob> running = new ConcurrentHashMap<>();

    ExportService(RetentionService retention, ExportRepository exports, ExportRunner runner, ObjectStore store,
            ExportProperties properties, CursorRepository cursors) {
        this.retention = retention;
        this.cursors = cursors;
        this.exports = exports;
        this.runner = runner;
        this.store = store;
        this.properties = properties;
        this.instance = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID().toString()
                .substring(0, 8);
        this.pool = new ThreadPoolExecutor(properties.threads(), properties.threads(), 0, TimeUnit.SECONDS,
                properties.queueCapacity() == 0 ? new SynchronousQueue<>()
                        : new ArrayBlockingQueue<>(properties.queueCapacity()),
                DaemonThreads.numbered("export"));
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("export-heartbeat"));
        long every = properties.progressInterval().toMillis();
        this.heartbeat.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Checks the lease under the retention lock (alive, its epoch not fenced) and queues an export of its stream.
     *
     * @return the new export's row (RUNNING; FAILED at once when the queue is full)
     * @throws ApiException {@code NOT_FOUND} for an unknown lease, {@code LEASE_EXPIRED}, {@code EPOCH_CHANGED},
     *                      {@code INVALID_BODY} for a lease of another stream
     */
    ExportRow start(StreamId stream, UUID leaseId, String requestedBy) {
        Lease lease = retention.requireLiveLease(leaseId);
        if (!lease.stream().equals(stream)) {
            throw new ApiException(ProblemCode.INVALID_BODY, "lease %s belongs to stream %s, not %s"
                    .formatted(leaseId, lease.stream(), stream));
        }
        // a no-op move taken under the retention lock: alive, not fenced, and P <= pin as of this moment
        lease = retention.advancePin(leaseId, lease.pin());
        UUID exportId = UuidV7.next();
        String prefix = "%s/%s/%s/e%d/%s/".formatted(properties.keyPrefix(), stream.tenant(), stream.catalog(),
                lease.epoch(), exportId);
        exports.insert(exportId, stream, leaseId, lease.epoch(), prefix, requestedBy, instance);
        ExportJob job = new ExportJob(exportId, stream, leaseId, lease.epoch(), prefix);
        running.put(exportId, job);
        try {
            pool.execute(() -> {
                try {
                    runner.run(job);
                } finally {
                    running.remove(exportId);
                }
            });
        } catch (RejectedExecutionException e) {
            running.remove(exportId);
            exports.markEnded(exportId, ExportStatus.FAILED, "too many exports queued on this instance "
                    + "(export.threads=" + properties.threads() + ", export.queue-capacity="
                    + properties.queueCapacity() + "); request again later");
        }
        return find(exportId);
    }

    /** @throws ApiException {@code NOT_FOUND} for an unknown or retired export */
    ExportRow find(UUID exportId) {
        ExportRow row = exports.find(exportId)
                .orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND, "export " + exportId + " does not exist"));
        if (row.retiredAt() != null) {
            throw new ApiException(ProblemCode.NOT_FOUND, "export %s was retired at %s (only the newest %d READY "
                    + "exports of a stream are kept); request a new one".formatted(exportId, row.retiredAt(),
                    properties.keep()));
        }
        return row;
    }

    /**
     * @return the manifest's bytes exactly as stored
     * @throws ApiException {@code EXPORT_NOT_READY} unless the export is READY, 410 {@code EPOCH_CHANGED} when its
     *                      epoch is no longer the stream's open one (a rotation closed it; docs/epochs.md)
     */
    byte[] manifest(ExportRow row) {
        if (row.status() != ExportStatus.READY) {
            throw new ApiException(ProblemCode.EXPORT_NOT_READY, "export %s is %s%s".formatted(row.exportId(),
                    row.status(), row.error() == null ? "" : ": " + row.error()));
        }
        long open = cursors.read(row.stream()).map(Cursor::epoch).orElse(row.epoch());
        if (open != row.epoch()) {
            throw new ApiException(ProblemCode.EPOCH_CHANGED, "export %s is of epoch %d of %s, which a rotation "
                    .formatted(row.exportId(), row.epoch(), row.stream()) + "closed (the stream is in epoch " + open
                    + "); request an export of the current epoch");
        }
        try (InputStream in = store.get(row.manifestKey())) {
            return in.readAllBytes();
        } catch (ObjectStore.NoSuchObjectException e) {
            throw new ApiException(ProblemCode.NOT_FOUND, "the manifest of export " + row.exportId()
                    + " is gone from the object store (" + row.manifestKey() + ")");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read manifest " + row.manifestKey(), e);
        }
    }

    private void beat() {
        for (ExportJob job : running.values()) {
            try {
                exports.progress(job.exportId(), job.phase(), job.rows(), job.bytes());
                if (job.logDue(LOG_EVERY_NANOS)) {
                    log.info("export {} of {}: {}, {} rows so far, {} s", job.exportId(), job.stream(), job.phase(),
                            job.rows(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - job.startedNanos()));
                }
            } catch (RuntimeException e) {
                log.warn("export {}: heartbeat failed: {}", job.exportId(), e.toString());
            }
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        heartbeat.shutdownNow();
        pool.shutdownNow();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            log.warn("exports still running at shutdown: {}; the stale sweep of another instance fails them",
                    running.keySet());
        }
    }
}
