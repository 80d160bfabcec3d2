package com.acme.catalog.resolver.epoch;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.epoch.RotationAccepted;
import com.acme.catalog.contracts.epoch.RotationRequest;
import com.acme.catalog.contracts.epoch.RotationScope;
import com.acme.catalog.contracts.epoch.RotationStatus;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.epoch.RotationJobRepository.Job;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * Starting a fleet rotation and reading one (docs/epochs.md "Fleet rotation"). One job runs at a time: a call with
 * the same {@code Idempotency-Key} (and request) as an earlier one answers the job that call was answered with,
 * whatever its status now; a call with the same scope as the running job answers the running job (and its key, if
 * any, is remembered for it); another scope while one runs is 409
 * {@code ROTATION_RUNNING}. So no repeated call rotates a stream twice. The job and one row per stream of its scope
 * are written in one transaction under the maintenance hold; {@link RotationJobRunner} rotates them.
 */
@Service
class RotationJobs {

    private static final Logger log = LoggerFactory.getLogger(RotationJobs.class);

    private final TransactionTemplate tx;
    private final MaintenanceSwitch maintenance;
    private final RotationJobRepository jobs;
    private final EpochRepository epochs;
    private final RotationJobRunner runner;
    private final ObjectMapper json;

    RotationJobs(TransactionTemplate tx, MaintenanceSwitch maintenance, RotationJobRepository jobs,
            EpochRepository epochs, RotationJobRunner runner, ObjectMapper json) {
        this.tx = tx;
        this.maintenance = maintenance;
        this.jobs = jobs;
        this.epochs = epochs;
        this.runner = runner;
        this.json = json;
    }

    /**
     * @param key the request's {@code Idempotency-Key}; null without one
     * @return the job rotating the scope: new, the running one of the same scope, or the key's
     * @throws ApiException 409 {@code MAINTENANCE_REQUIRED} unless the resolver is in maintenance, 409
     *                      {@code ROTATION_RUNNING} while a job of another scope runs, 422
     *                      {@code IDEMPOTENCY_KEY_REUSED} for a key used with another request, 503
     *                      {@code CONTROL_STORE_UNAVAILABLE} when the store cannot list a tenant's or every stream
     */
    RotationAccepted start(RotationRequest request, String issuer, IdempotencyKey key) {
        for (int attempt = 0; ; attempt++) {
            Optional<RotationJobRepository.Keyed> before = key == null ? Optional.empty()
                    : jobs.byKey(issuer, key.value());
            if (before.isPresent()) {
                if (!before.get().requestSha256().equals(key.fingerprint())) {
                    throw key.reused();
                }
                return accepted(jobs.job(before.get().rotationId()).orElseThrow());
            }
            try {
                Job job = create(request, issuer, key);
                runner.runSoon();
                return accepted(job);
            } catch (DuplicateKeyException raced) {
                // another call committed the same key, or a job, between the reads and the insert: read again
                if (attempt > 0) {
                    throw raced;
                }
            }
        }
    }

    private Job create(RotationRequest request, String issuer, IdempotencyKey key) {
        RotationScope scope = request.scope();
        String tenant = scope.tenant();
        boolean fromDatabase = scope.streams() == null;
        // the control store's streams are read before the transaction: it is another database
        List<StreamId> extra = fromDatabase ? epochs.known(tenant) : scope.named();
        UUID id = UuidV7.next();
        return tx.execute(status -> {
            if (!maintenance.holdAndRead()) {
                throw new ApiException(ProblemCode.MAINTENANCE_REQUIRED, "a fleet rotation needs the resolver in "
                        + "maintenance first (POST /v1/admin/maintenance {\"enabled\":true})");
            }
            Optional<Job> running = jobs.running();
            if (running.isPresent()) {
                if (running.get().scopeKey().equals(scope.key())) {
                    if (key != null) {
                        jobs.rememberKey(issuer, key.value(), key.fingerprint(), running.get().rotationId());
                    }
                    return running.get();
                }
                throw new ApiException(ProblemCode.ROTATION_RUNNING, "fleet rotation " + running.get().rotationId()
                        + " of another scope is running; wait for it (GET /v1/epochs/rotations/"
                        + running.get().rotationId() + ")");
            }
            jobs.create(id, request.reason(), json.writeValueAsString(scope), scope.key(), issuer, tenant,
                    fromDatabase, extra);
            if (key != null) {
                jobs.rememberKey(issuer, key.value(), key.fingerprint(), id);
            }
            Job job = jobs.job(id).orElseThrow();
            log.info("fleet rotation {} started by {}: scope {}, {} stream(s) ({})", id, issuer, scope.key(),
                    job.streams(), request.reason());
            return job;
        });
    }

    /** @return the job's progress; empty when there is no such job */
    Optional<RotationStatus> status(UUID rotationId) {
        return jobs.job(rotationId).map(this::status);
    }

    private RotationStatus status(Job job) {
        double rate = RotationJobRunner.rate(job);
        long left = job.streams() - job.rotated() - job.failed();
        Long eta = job.isRunning() && rate > 0 ? Math.round(left / rate) : null;
        return new RotationStatus(job.rotationId(), job.status(), job.reason(),
                json.readValue(job.scopeJson(), RotationScope.class), job.streams(), job.rotated(), job.failed(),
                job.startedAt(), job.finishedAt(), rate, eta,
                jobs.failures(job.rotationId(), RotationStatus.MAX_ERRORS), job.error());
    }

    private static RotationAccepted accepted(Job job) {
        return new RotationAccepted(job.rotationId(), job.status());
    }
}
