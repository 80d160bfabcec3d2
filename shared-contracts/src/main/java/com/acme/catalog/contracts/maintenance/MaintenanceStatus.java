package com.acme.catalog.contracts.maintenance;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/admin/maintenance} (both services): whether the service is in maintenance and since when.
 *
 * @param since when maintenance was turned on; null (absent on the wire) while it is off
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MaintenanceStatus(boolean enabled, Instant since) {

    public MaintenanceStatus {
        if (!enabled && since != null) {
            throw new IllegalArgumentException("since is only known while maintenance is on");
        }
    }
}
