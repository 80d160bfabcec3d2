package com.acme.catalog.product.rebuild;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;
import com.acme.catalog.contracts.rebuild.RebuildRequest;
import com.acme.catalog.contracts.rebuild.RebuildStarted;
import com.acme.catalog.contracts.rebuild.RebuildView;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code POST /v1/rebuilds} and {@code GET /v1/rebuilds/{id}} (role operator). */
@Tag(name = "Rebuilds", description = "Rebuilding a stream's projection from an export")
@RestController
class RebuildController {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<LinkedHashMap<String, Long>> MILLIS = new TypeReference<>() {
    };

    private final RebuildService service;

    RebuildController(RebuildService service) {
        this.service = service;
    }

    @Operation(operationId = "startRebuild", summary = "Start a rebuild",
            description = "Leases, exports, loads and catches up a new generation, then cuts over. Role operator. "
                    + "Refused (409 PROJECTION_VERSION_OLDER) for a stream whose serving or building generation is of "
                    + "a newer projection version than this instance's, unless allowOlderProjection=true (a rollback "
                    + "of the projection after every newer instance stopped: docs/runbooks/projection-upgrade.md).")
    @PostMapping("/v1/rebuilds")
    @ResponseStatus(HttpStatus.ACCEPTED)
    RebuildStarted start(@RequestBody(required = false) JsonNode body,
            @RequestParam(name = "allowOlderProjection", defaultValue = "false") boolean allowOlderProjection) {
        Access.require(Role.OPERATOR);
        // bound after the role check, as every endpoint answers a caller without the role before its body
        StreamId stream = StrictJson.bind(body, RebuildRequest.class, " {tenant, catalog}").stream();
        Access.require(stream.tenant(), Role.OPERATOR);
        return new RebuildStarted(service.start(stream, allowOlderProjection
                ? RebuildService.Reason.OPERATOR_OLDER_PROJECTION : RebuildService.Reason.OPERATOR));
    }

    @Operation(operationId = "rebuildStatus", summary = "Read a rebuild",
            description = "Its phase, progress and, on failure, an error sentence with a stable code.")
    @GetMapping("/v1/rebuilds/{rebuildId}")
    RebuildView get(@PathVariable String rebuildId) {
        Access.require(Role.OPERATOR);
        UUID id;
        try {
            id = UUID.fromString(rebuildId);
        } catch (IllegalArgumentException e) {
            throw new ApiException(ProblemCode.INVALID_ID, "rebuildId must be a UUID");
        }
        Rebuild r = service.find(id).orElseThrow(() -> RebuildService.notFound(rebuildId));
        Access.require(r.stream().tenant(), Role.OPERATOR);
        Map<String, Long> phaseMillis = null;
        Map<String, Long> stepMillis = null;
        RebuildRepository.Timings t = service.timings(id).orElse(null);
        if (t != null) {
            phaseMillis = JSON.readValue(t.phaseMillisJson(), MILLIS);
            stepMillis = JSON.readValue(t.stepMillisJson(), MILLIS);
        }
        RebuildRepository.Retry retry = service.retry(id).orElse(null);
        RebuildRepository.Origin origin = service.origin(id).orElse(null);
        boolean waiting = retry != null && retry.nextRetryAt() != null && !r.phase().isFinal();
        java.time.Instant budgetEnds = retry == null || retry.retrySince() == null ? null
                : retry.retrySince().plus(service.retryBudget());
        return new RebuildView(r.rebuildId(), r.stream().tenant(), r.stream().catalog(), r.phase().name(),
                r.attempt(), r.cursor(), r.target(), r.loadedRows(), r.appliedEvents(), r.error(), phaseMillis,
                stepMillis, r.error() == null || retry == null ? null : retry.errorCode(),
                waiting ? Boolean.TRUE : retry == null || retry.retryCode() == null ? null : Boolean.FALSE,
                retry == null ? null : retry.retryCode(), retry == null ? null : retry.retryReason(),
                waiting ? retry.nextRetryAt() : null, retry == null ? null : retry.retrySince(), budgetEnds,
                service.progress(r), origin == null ? null : origin.reason(),
                origin == null ? null : origin.projectionVersion());
    }
}
