package com.acme.catalog.product.epoch;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.epoch.OldEpochDeliveries;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /v1/audit/old-epoch-deliveries?tenant=&catalog=&limit=} (role operator), newest first. */
@Tag(name = "Audit", description = "Events of old epochs that reached the product")
@RestController
class AuditController {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    private final OldEpochAudit audit;

    AuditController(OldEpochAudit audit) {
        this.audit = audit;
    }

    @Operation(operationId = "oldEpochDeliveries", summary = "List old-epoch deliveries",
            description = "Every event of an epoch older than the stream's current one that reached the product, "
                    + "terminally ignored; newest first. Role operator.")
    @GetMapping("/v1/audit/old-epoch-deliveries")
    OldEpochDeliveries list(@RequestParam(required = false) String tenant,
            @RequestParam(required = false) String catalog, @RequestParam(required = false) Integer limit) {
        if (tenant != null) {
            Access.require(tenant, Role.OPERATOR);
        } else {
            Access.require(Role.OPERATOR);
            if (!Access.caller().tenants().isEmpty()) {
                throw new ApiException(ProblemCode.FORBIDDEN, "a tenant-scoped token must name its tenant");
            }
        }
        int n = limit == null ? DEFAULT_LIMIT : limit;
        if (n < 1 || n > MAX_LIMIT) {
            throw new ApiException(ProblemCode.INVALID_BODY, "limit must be 1-" + MAX_LIMIT);
        }
        return new OldEpochDeliveries(audit.list(tenant, catalog, n));
    }
}
