package com.acme.catalog.product.completeness;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.completeness.CompletenessView;
import com.acme.catalog.contracts.completeness.FleetCompletenessView;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/projection-completeness?tenant=&catalog=} (operator or consumer): one stream's completeness;
 * without a stream (operator): the fleet's, counted by state and epoch, with a page of the streams not CURRENT.
 */
@Tag(name = "Completeness", description = "How far the projection is verified against the resolver")
@RestController
class CompletenessController {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    private static final String STREAM_EXAMPLE = """
            {"epoch": 1, "verifiedThrough": 48, "lastSuccessfulVerification": "2026-11-30T10:05:00Z", \
            "observedSourceBoundary": 48, "state": "CURRENT", \
            "worker": {"alive": true, "lastHeartbeat": "2026-11-30T10:05:02Z"}}""";
    private static final String FLEET_EXAMPLE = """
            {"streams": 10000, "byState": {"CURRENT": 9998, "CATCHING_UP": 1, "RETRYING": 0, "BLOCKED": 1}, \
            "byEpoch": {"1": 1, "2": 9999}, "notCurrent": [\
            {"tenant": "acme", "catalog": "shoes", "epoch": 1, "state": "BLOCKED", \
            "reason": "EPOCH_CHANGED: the product serves epoch 1 but the current epoch is 2; rebuilding from an \
            export of it (LOADING)"}, \
            {"tenant": "acme", "catalog": "socks", "epoch": 2, "state": "CATCHING_UP", \
            "reason": "BEHIND_OBSERVED_BOUNDARY"}], "next": "acme/socks"}""";

    private final CompletenessService service;

    CompletenessController(CompletenessService service) {
        this.service = service;
    }

    @Operation(operationId = "projectionCompleteness", summary = "Read projection completeness (a stream or the fleet)",
            description = "With tenant and catalog (operator, or consumer of the tenant): the stream's "
                    + "verified-through position, state and the recovery worker's heartbeat. Without them (operator): "
                    + "every stream the product holds counted by state and by epoch, and the streams that are not "
                    + "CURRENT with their state and reason, ordered by tenant and catalog and paged with after "
                    + "(the previous page's next) and limit (1 to " + MAX_LIMIT + ", default " + DEFAULT_LIMIT
                    + "). One of tenant and catalog without the other, or after/limit with a stream, is 400.",
            responses = @ApiResponse(responseCode = "200", description = "A stream's completeness (with tenant and "
                    + "catalog) or the fleet's (without)", content = @Content(mediaType = "application/json",
                            schema = @Schema(oneOf = {CompletenessView.class, FleetCompletenessView.class}),
                            examples = {
                                @ExampleObject(name = "stream", summary = "one stream", value = STREAM_EXAMPLE),
                                @ExampleObject(name = "fleet", summary = "the fleet, one page", value = FLEET_EXAMPLE)
                            })))
    @GetMapping("/v1/projection-completeness")
    Object completeness(
            @Parameter(description = "the stream's tenant (with catalog); absent for the fleet")
            @RequestParam(required = false) String tenant,
            @Parameter(description = "the stream's catalog (with tenant); absent for the fleet")
            @RequestParam(required = false) String catalog,
            @Parameter(description = "fleet only: list the streams not CURRENT after this tenant/catalog (the "
                    + "previous page's next)") @RequestParam(required = false) String after,
            @Parameter(description = "fleet only: at most this many streams not CURRENT, 1 to " + MAX_LIMIT
                    + " (default " + DEFAULT_LIMIT + ")") @RequestParam(required = false) String limit) {
        if (tenant == null && catalog == null) {
            Access.require(Role.OPERATOR);
            return service.fleet().view(parseAfter(after), limit(limit));
        }
        Access.require(Role.OPERATOR, Role.CONSUMER);
        if (tenant == null || catalog == null) {
            throw new ApiException(ProblemCode.INVALID_BODY, "tenant and catalog are required together (without "
                    + "both, the fleet's completeness is answered)");
        }
        if (after != null || limit != null) {
            throw new ApiException(ProblemCode.INVALID_BODY, "after and limit page the fleet's completeness; they "
                    + "are not taken with a stream");
        }
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.CONSUMER);
        return CompletenessService.toView(service.of(s));
    }

    private static StreamId parseAfter(String after) {
        if (after == null || after.isEmpty()) {
            return null;
        }
        int slash = after.indexOf('/');
        if (slash < 0) {
            throw new ApiException(ProblemCode.INVALID_BODY, "after must be tenant/catalog, not '" + after + "'");
        }
        return new StreamId(after.substring(0, slash), after.substring(slash + 1));
    }

    private static int limit(String limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ApiException(ProblemCode.INVALID_BODY, "limit must be an integer from 1 to " + MAX_LIMIT + ", not '"
                + limit + "'");
    }
}
