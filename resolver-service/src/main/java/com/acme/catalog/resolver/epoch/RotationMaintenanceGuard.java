package com.acme.catalog.resolver.epoch;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.platform.maintenance.MaintenanceResume;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The resolver's maintenance stays on while a fleet rotation runs: turning it off is refused with 409
 * {@code ROTATION_RUNNING}, unless {@code "force":true}, which ends the job ({@code FAILED}, the streams it had left
 * not rotated). Decided in the switch's transaction under the exclusive maintenance hold, so no job is being created
 * or mid-batch then (both hold the hold shared), and a job created just before is seen.
 */
@Component
class RotationMaintenanceGuard implements MaintenanceResume {

    private static final Logger log = LoggerFactory.getLogger(RotationMaintenanceGuard.class);

    private final RotationJobRepository jobs;

    RotationMaintenanceGuard(RotationJobRepository jobs) {
        this.jobs = jobs;
    }

    @Override
    public void beforeResume() {
    }

    @Override
    public void whileResuming(boolean force) {
        jobs.running().ifPresent(job -> {
            long left = job.streams() - job.rotated() - job.failed();
            if (!force) {
                throw new ApiException(ProblemCode.ROTATION_RUNNING, "fleet rotation " + job.rotationId()
                        + " is running (" + left + " of " + job.streams() + " stream(s) left): maintenance stays on "
                        + "until it ended (GET /v1/epochs/rotations/" + job.rotationId() + "); "
                        + "{\"enabled\":false,\"force\":true} stops it");
            }
            jobs.stopRunning("stopped: maintenance was turned off with force, " + left + " stream(s) not rotated");
            log.warn("fleet rotation {} stopped: maintenance turned off with force, {} stream(s) not rotated",
                    job.rotationId(), left);
        });
    }
}
