package com.acme.catalog.product.recovery;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.platform.maintenance.MaintenanceResume;

import org.springframework.stereotype.Component;

/**
 * Before the product's maintenance is turned off, one stream sweep: the runbook rotates epochs while both services
 * are in maintenance, and without this the product would learn the new epochs only at its next sweep, serving the
 * old epoch's generations as current in between (issue 31: up to a sweep interval after maintenance-off). The
 * sweep raises {@code stream_epoch} (and records rollbacks) before the switch commits, so every read that finds
 * maintenance off, on any instance, finds the new epoch too and refuses the old generation (503
 * {@code STREAM_FENCED}) until the rebuild at the new epoch cut over.
 *
 * <p>When the resolver cannot be listed maintenance stays on (503 {@code MAINTENANCE}, saying why): the product
 * cannot know which generations are still current. Without the recovery worker ({@code product.recovery.enabled}
 * false) there is no sweep and nothing to wait for.
 */
@Component
class EpochsBeforeResume implements MaintenanceResume {

    private final StreamSweep sweep;

    EpochsBeforeResume(StreamSweep sweep) {
        this.sweep = sweep;
    }

    @Override
    public void beforeResume() {
        if (!sweep.enabled()) {
            return;
        }
        try {
            sweep.sweepOrFail();
        } catch (StreamSweep.UnlistedException e) {
            throw new ApiException(ProblemCode.MAINTENANCE, "maintenance stays on: the product must learn the "
                    + "streams' current epochs from the resolver before it serves again, and " + e.getMessage()
                    + "; turn it off again once the resolver answers");
        }
    }
}
