package com.acme.catalog.contracts.maintenance;

/** {@code POST /v1/admin/maintenance} body (both services): {@code {"enabled":true|false}}. */
public record MaintenanceRequest(Boolean enabled) {

    public MaintenanceRequest {
        if (enabled == null) {
            throw new IllegalArgumentException("enabled (true or false) is required");
        }
    }
}
