package com.acme.catalog.contracts.maintenance;

import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /v1/admin/maintenance} body (both services): {@code {"enabled":true|false,"force":true|false}}.
 * {@code force} (default false) turns maintenance off even though something that needs it still runs (the resolver's
 * fleet epoch rotation, which then stops); a service with nothing of the kind ignores it.
 */
public record MaintenanceRequest(@JsonDeserialize(using = StrictJson.Flag.class) Boolean enabled,
        @JsonDeserialize(using = StrictJson.Flag.class) Boolean force) {

    public MaintenanceRequest {
        if (enabled == null) {
            throw new IllegalArgumentException("enabled (true or false) is required");
        }
        force = Boolean.TRUE.equals(force);
    }

    /** A switch without force. */
    public MaintenanceRequest(Boolean enabled) {
        this(enabled, false);
    }
}
