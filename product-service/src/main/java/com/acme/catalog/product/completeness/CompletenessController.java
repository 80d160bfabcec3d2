package com.acme.catalog.product.completeness;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.completeness.CompletenessView;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /v1/projection-completeness?tenant=&catalog=} (operator or consumer). */
@Tag(name = "Completeness", description = "How far the projection is verified against the resolver")
@RestController
class CompletenessController {

    private final CompletenessService service;

    CompletenessController(CompletenessService service) {
        this.service = service;
    }

    @Operation(operationId = "projectionCompleteness", summary = "Read projection completeness",
            description = "Verified-through position, state and the recovery worker's heartbeat. Operator or "
                    + "consumer.")
    @GetMapping("/v1/projection-completeness")
    CompletenessView completeness(@RequestParam(required = false) String tenant,
            @RequestParam(required = false) String catalog) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        if (tenant == null || catalog == null) {
            throw new ApiException(ProblemCode.INVALID_BODY, "tenant and catalog are required");
        }
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.CONSUMER);
        return CompletenessService.toView(service.of(s));
    }
}
