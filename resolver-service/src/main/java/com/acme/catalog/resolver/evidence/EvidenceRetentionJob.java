package com.acme.catalog.resolver.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.FailureText;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.evidence.RetentionRunSummary;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.platform.web.TransientDatabaseFailure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * One evidence retention run (docs/design.md §5), over one tenant or all:
 * <ol>
 *   <li>finish object deletes of earlier expiries that did not complete;
 *   <li>look up every live artifact's object in the store: flag the missing ones ({@code missing_since}; they are
 *       kept and reported, never deleted), clear the flag of those found again;
 *   <li>expire every unreferenced, present, non-fixture artifact inactive for the window, one at a time through
 *       {@link EvidenceExpirer} (which decides again under the artifact's lock);
 *   <li>record the summary (table {@code evidence_retention_run}, log line) and refresh the missing gauge.
 * </ol>
 * Progress is logged after every page. A failure stops the run; what it did stays done and is counted in the FAILED
 * summary, and the next run continues.
 */
@Service
class EvidenceRetentionJob {

    private static final Logger log = LoggerFactory.getLogger(EvidenceRetentionJob.class);
    private static final UUID FIRST = new UUID(0, 0);

    private final EvidenceRetentionRepository repository;
    private final EvidenceExpirer expirer;
    private final RetentionRunLog runs;
    private final ObjectStore store;
    private final EvidenceProperties properties;
    private final EvidenceMetrics metrics;
    private final Clock clock;

    EvidenceRetentionJob(EvidenceRetentionRepository repository, EvidenceExpirer expirer, RetentionRunLog runs,
            ObjectStore store, EvidenceProperties properties, EvidenceMetrics metrics, Clock clock) {
        this.repository = repository;
        this.expirer = expirer;
        this.runs = runs;
        this.store = store;
        this.properties = properties;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** @param tenant null for every tenant; @param kind {@code SCHEDULED} or {@code REQUESTED} */
    RetentionRunSummary run(String tenant, String kind) {
        Counts n = new Counts();
        UUID runId = UuidV7.next();
        Instant started = clock.instant();
        String scope = tenant == null ? "every tenant" : "tenant " + tenant;
        log.info("evidence retention run {} ({}) started for {}, window {}", runId, kind, scope,
                properties.retention().window());
        String error = null;
        try {
            finishObjectDeletes(tenant, n);
            if (properties.retention().checkObjects()) {
                checkObjects(tenant, n);
            }
            expireCandidates(tenant, n);
        } catch (IOException | RuntimeException e) {
            error = describe(e);
            if (Thread.currentThread().isInterrupted()) {
                log.info("evidence retention run {} interrupted (shutdown); the next run continues", runId);
            } else {
                log.warn("evidence retention run {} failed; the next run continues", runId, e);
            }
        }
        n.missing = repository.countMissing(tenant);
        metrics.missing(repository.countMissing(null));
        metrics.runFinished(error == null);
        RetentionRunSummary summary = new RetentionRunSummary(runId, tenant, kind, started, clock.instant(),
                error == null ? "COMPLETED" : "FAILED", n.checked, n.newlyMissing, n.reappeared, n.missing,
                n.candidates, n.kept, n.expired, n.expiredBytes, n.objectsDeleted, error);
        runs.record(summary);
        log.info("evidence retention run {} {}: checked {}, newly missing {}, reappeared {}, missing {}, "
                + "candidates {}, kept {}, expired {} ({} bytes), objects deleted {}", runId, summary.outcome(),
                n.checked, n.newlyMissing, n.reappeared, n.missing, n.candidates, n.kept, n.expired, n.expiredBytes,
                n.objectsDeleted);
        return summary;
    }

    /**
     * @return the run summary's {@code error}: a stable code and a sentence, never an exception's class name
     *         ({@code OBJECT_STORE_FAILED}, {@code DATABASE_UNAVAILABLE}, else {@code EVIDENCE_RETENTION_FAILED})
     */
    static String describe(Exception failure) {
        String detail = FailureText.detail(failure, 400, "no message; the resolver's log has the details");
        if (failure instanceof IOException || failure instanceof UncheckedIOException) {
            return "OBJECT_STORE_FAILED: reading or deleting an evidence object failed (" + detail + ")";
        }
        if (TransientDatabaseFailure.isTransient(failure)) {
            return "DATABASE_UNAVAILABLE: the resolver's database connection failed (" + detail + ")";
        }
        return "EVIDENCE_RETENTION_FAILED: " + detail;
    }

    private void finishObjectDeletes(String tenant, Counts n) throws IOException {
        List<Artifact> pending;
        while (!(pending = repository.pendingObjectDeletes(tenant, properties.retention().batchSize())).isEmpty()) {
            for (Artifact a : pending) {
                expirer.deleteObject(a);
                n.objectsDeleted++;
            }
            log.info("evidence retention: deleted {} objects of earlier expiries", n.objectsDeleted);
        }
    }

    private void checkObjects(String tenant, Counts n) throws IOException {
        UUID after = FIRST;
        List<Artifact> page;
        while (!(page = repository.livePage(tenant, after, properties.retention().batchSize())).isEmpty()) {
            List<UUID> present = new ArrayList<>();
            for (Artifact a : page) {
                boolean exists = store.exists(a.objectKey());
                n.checked++;
                if (!exists && repository.flagMissing(a)) {
                    n.newlyMissing++;
                    log.warn("evidence artifact {} of tenant {} is missing from the store (key {}); flagged and kept",
                            a.artifactId(), a.tenant(), a.objectKey());
                } else if (exists && a.missingSince() != null && repository.clearMissing(a)) {
                    n.reappeared++;
                    log.info("evidence artifact {} of tenant {} is in the store again; flag cleared", a.artifactId(),
                            a.tenant());
                } else if (exists) {
                    present.add(a.artifactId());
                }
            }
            repository.checked(present);
            after = page.get(page.size() - 1).artifactId();
            log.info("evidence retention: checked {} objects so far ({} newly missing)", n.checked, n.newlyMissing);
        }
    }

    private void expireCandidates(String tenant, Counts n) throws IOException {
        long window = properties.retention().window().toSeconds();
        UUID after = FIRST;
        List<UUID> page;
        while (!(page = repository.candidates(tenant, window, after, properties.retention().batchSize())).isEmpty()) {
            for (UUID id : page) {
                n.candidates++;
                Optional<Artifact> expired = expirer.expire(id, window);
                if (expired.isEmpty()) {
                    n.kept++;
                    continue;
                }
                Artifact a = expired.get();
                n.expired++;
                n.expiredBytes += a.bytes();
                metrics.expired(a.bytes());
                expirer.deleteObject(a);
                n.objectsDeleted++;
            }
            after = page.get(page.size() - 1);
            log.info("evidence retention: expired {} of {} candidates so far", n.expired, n.candidates);
        }
    }

    private static final class Counts {
        long checked;
        long newlyMissing;
        long reappeared;
        long missing;
        long candidates;
        long kept;
        long expired;
        long expiredBytes;
        long objectsDeleted;
    }
}
