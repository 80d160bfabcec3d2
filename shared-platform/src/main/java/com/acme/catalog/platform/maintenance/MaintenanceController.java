package com.acme.catalog.platform.maintenance;

import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import com.acme.catalog.contracts.maintenance.MaintenanceRequest;
import com.acme.catalog.contracts.maintenance.MaintenanceStatus;

/** {@code GET|POST /v1/admin/maintenance} (role operator), the same on both services. */
@Tag(name = "Maintenance", description = "Pausing writers, relay, consumers and public serving")
@RestController
@RequestMapping("/v1/admin/maintenance")
class MaintenanceController {

    private final MaintenanceSwitch maintenance;

    MaintenanceController(MaintenanceSwitch maintenance) {
        this.maintenance = maintenance;
    }

    @Operation(operationId = "maintenanceStatus", summary = "Read the maintenance switch")
    @GetMapping
    MaintenanceStatus status() {
        Access.require(Role.OPERATOR);
        return maintenance.status();
    }

    /** Answers once the switch is committed, so every write that passed the check before has ended. */
    @Operation(operationId = "setMaintenance", summary = "Turn maintenance on or off",
            description = "Answers once the switch is committed, so every write that passed the check before has "
                    + "ended. Survives a restart. The resolver refuses to turn it off while a fleet epoch rotation "
                    + "runs (409 ROTATION_RUNNING) unless force is true, which stops the rotation.")
    @PostMapping
    MaintenanceStatus set(@RequestBody MaintenanceRequest request) {
        Caller caller = Access.require(Role.OPERATOR);
        return maintenance.set(request.enabled(), caller.name(), request.force());
    }
}
