package com.acme.catalog.resolver.evidence;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.evidence.EvidenceRetentionStatus;
import com.acme.catalog.contracts.evidence.RetentionRunSummary;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Evidence retention: a run on demand (operator) and a tenant's status (operators and writers of the tenant). */
@Tag(name = "Evidence")
@RestController
class EvidenceRetentionController {

    private final EvidenceRetentionJob job;
    private final EvidenceRetentionStatusReader status;

    EvidenceRetentionController(EvidenceRetentionJob job, EvidenceRetentionStatusReader status) {
        this.job = job;
        this.status = status;
    }

    /** Runs retention now, over {@code tenant} or (absent) every tenant the token may access. */
    @Operation(operationId = "runEvidenceRetention", summary = "Run evidence retention",
            description = "Now, over tenant or (absent) every tenant the token may access: expires unreferenced "
                    + "artifacts past their retention and flags missing objects. Role operator.")
    @PostMapping("/v1/evidence-retention/run")
    RetentionRunSummary run(@RequestParam(required = false) String tenant) {
        if (tenant != null) {
            StreamId.requirePart("tenant", tenant);
            Access.require(tenant, Role.OPERATOR);
        } else {
            Caller caller = Access.require(Role.OPERATOR);
            if (!caller.tenants().isEmpty()) {
                throw new ApiException(ProblemCode.FORBIDDEN, "a token limited to tenants must name one (?tenant=)");
            }
        }
        return job.run(tenant, "REQUESTED");
    }

    @Operation(operationId = "evidenceRetentionStatus", summary = "Read a tenant's evidence retention",
            description = "Counts of referenced, unreferenced and expired artifacts and the missing ones. Operators "
                    + "and writers of the tenant.")
    @GetMapping("/v1/tenants/{tenant}/evidence-retention")
    EvidenceRetentionStatus status(@PathVariable String tenant) {
        StreamId.requirePart("tenant", tenant);
        Access.require(tenant, Role.OPERATOR, Role.WRITER);
        return status.read(tenant);
    }
}
