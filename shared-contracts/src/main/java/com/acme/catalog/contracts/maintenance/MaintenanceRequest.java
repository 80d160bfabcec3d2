package com.acme.catalog.contracts.maintenance;

import com.acme.catalog.contracts.json.StrictJson;

import tools.jackson.databind.annotation.JsonDeserialize;

/** {@code POST /v1/admin/maintenance} body (both services): {@code {"enabled":true|false}}. */
public record MaintenanceRequest(@JsonDeserialize(using = StrictJson.Flag.class) Boolean enabled) {

    public MaintenanceRequest {
        if (enabled == null) {
            throw new IllegalArgumentException("enabled (true or false) is required");
        }
    }
}
