package com.acme.catalog.resolver.evidence;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.evidence.EvidenceRetentionStatus;
import com.acme.catalog.contracts.evidence.RetentionRunSummary;
import com.acme.catalog.contracts.web.Access;
import com.acme.catalog.contracts.web.Caller;
import com.acme.catalog.contracts.web.Role;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Evidence retention: a run on demand (operator) and a tenant's status (operators and writers of the tenant). */
@RestController
class EvidenceRetentionController {

    private final EvidenceRetentionJob job;
    private final EvidenceRetentionStatusReader status;

    EvidenceRetentionController(EvidenceRetentionJob job, EvidenceRetentionStatusReader status) {
        this.job = job;
        this.status = status;
    }

    /** Runs retention now, over {@code tenant} or (absent) every tenant the token may access. */
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

    @GetMapping("/v1/tenants/{tenant}/evidence-retention")
    EvidenceRetentionStatus status(@PathVariable String tenant) {
        StreamId.requirePart("tenant", tenant);
        Access.require(tenant, Role.OPERATOR, Role.WRITER);
        return status.read(tenant);
    }
}
