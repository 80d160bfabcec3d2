package com.acme.catalog.resolver.epoch;

import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.epoch.StreamRotator.Failure;
import com.acme.catalog.resolver.epoch.StreamRotator.Outcome;
import com.acme.catalog.resolver.epoch.StreamRotator.Rotated;
import com.acme.catalog.resolver.epoch.StreamRotator.Start;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code POST /v1/epochs/{tenant}/{catalog}/rotate} and a stream's reset (docs/design.md step 9): one stream through
 * {@link StreamRotator}, the path of every rotation, in one transaction of the resolver's database that holds the
 * maintenance hold (maintenance must be on, and stays on until it ends; a reset under an import fence takes the hold
 * without needing maintenance) and the open cursor's row lock. A stream a running fleet rotation has still to rotate
 * is refused (409 {@code ROTATION_RUNNING}): the job rotates it.
 */
@Service
class EpochRotation implements StreamReset {

    private static final Logger log = LoggerFactory.getLogger(EpochRotation.class);

    private final TransactionTemplate tx;
    private final MaintenanceSwitch maintenance;
    private final StreamRotator rotator;
    private final RotationJobRepository jobs;

    EpochRotation(TransactionTemplate tx, MaintenanceSwitch maintenance, StreamRotator rotator,
            RotationJobRepository jobs) {
        this.tx = tx;
        this.maintenance = maintenance;
        this.rotator = rotator;
        this.jobs = jobs;
    }

    /**
     * Issues epoch N+1 and opens it at position 0 over the accepted state as it is (restored).
     *
     * @return the epoch now open
     * @throws ApiException 409 {@code MAINTENANCE_REQUIRED} unless the resolver is in maintenance, 409
     *                      {@code ROTATION_RUNNING} while a fleet rotation has the stream still to rotate, 409
     *                      {@code EPOCH_MISMATCH} when another rotation issued the epoch first, 503
     *                      {@code CONTROL_STORE_UNAVAILABLE}
     */
    long rotate(StreamId s, String reason, String issuer) {
        return one(s, Start.RESTORED, reason, issuer, null);
    }

    @Override
    public long reset(StreamId s, String reason, String issuer) {
        return one(s, Start.EMPTY, reason, issuer, null);
    }

    @Override
    public long resetUnderImportFence(StreamId s, String reason, String issuer, Runnable fenceHeld) {
        if (fenceHeld == null) {
            throw new IllegalArgumentException("a reset under an import fence needs the fence's check");
        }
        return one(s, Start.EMPTY, reason, issuer, fenceHeld);
    }

    private long one(StreamId s, Start start, String reason, String issuer, Runnable fenceHeld) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a rotation commits its own transaction");
        }
        String what = start == Start.EMPTY ? "resetting" : "rotating the epoch of";
        Outcome outcome = tx.execute(status -> {
            boolean inMaintenance = maintenance.holdAndRead();
            if (fenceHeld == null && !inMaintenance) {
                throw new ApiException(ProblemCode.MAINTENANCE_REQUIRED, what + " " + s + " needs the resolver in "
                        + "maintenance first (POST /v1/admin/maintenance {\"enabled\":true})");
            }
            jobs.runningWith(s).ifPresent(rotationId -> {
                throw new ApiException(ProblemCode.ROTATION_RUNNING, "fleet rotation " + rotationId + " has " + s
                        + " still to rotate; wait for it (GET /v1/epochs/rotations/" + rotationId + ")");
            });
            Outcome o = rotator.rotate(List.of(s), start, null, reason, issuer, fenceHeld);
            if (!o.failures().isEmpty()) {
                Failure f = o.failures().get(0);
                throw new ApiException(f.code(), f.message());
            }
            return o;
        });
        rotator.afterCommit(outcome);
        Rotated r = outcome.rotated().get(0);
        log.info("{}: epoch {} issued by {} ({}){}; epoch {} fenced at position {}", s, r.epoch(), issuer, reason,
                start == Start.EMPTY ? ", starting empty (reset)" : "",
                r.fencedEpoch() == null ? "none" : r.fencedEpoch(),
                r.fencedPosition() == null ? "-" : r.fencedPosition());
        return r.epoch();
    }
}
