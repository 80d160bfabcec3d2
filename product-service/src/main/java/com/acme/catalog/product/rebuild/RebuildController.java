package com.acme.catalog.product.rebuild;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.web.Access;
import com.acme.catalog.contracts.web.Role;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code POST /v1/rebuilds} and {@code GET /v1/rebuilds/{id}} (role operator). */
@RestController
class RebuildController {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final RebuildService service;

    RebuildController(RebuildService service) {
        this.service = service;
    }

    @PostMapping("/v1/rebuilds")
    @ResponseStatus(HttpStatus.ACCEPTED)
    Map<String, Object> start(@RequestBody(required = false) JsonNode body) {
        Access.require(Role.OPERATOR);
        if (body == null || !body.isObject() || !body.path("tenant").isString() || !body.path("catalog").isString()) {
            throw new ApiException(ProblemCode.INVALID_BODY, "body must be {\"tenant\",\"catalog\"}");
        }
        StreamId stream = new StreamId(body.get("tenant").stringValue(), body.get("catalog").stringValue());
        Access.require(stream.tenant(), Role.OPERATOR);
        return Map.of("rebuildId", service.start(stream).toString());
    }

    @GetMapping("/v1/rebuilds/{rebuildId}")
    Map<String, Object> get(@PathVariable String rebuildId) {
        Access.require(Role.OPERATOR);
        UUID id;
        try {
            id = UUID.fromString(rebuildId);
        } catch (IllegalArgumentException e) {
            throw new ApiException(ProblemCode.INVALID_ID, "rebuildId must be a UUID");
        }
        Rebuild r = service.find(id).orElseThrow(() -> RebuildService.notFound(rebuildId));
        Access.require(r.stream().tenant(), Role.OPERATOR);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rebuildId", r.rebuildId().toString());
        out.put("tenant", r.stream().tenant());
        out.put("catalog", r.stream().catalog());
        out.put("phase", r.phase().name());
        out.put("attempt", r.attempt());
        out.put("cursor", r.cursor());
        out.put("target", r.target());
        out.put("loadedRows", r.loadedRows());
        out.put("appliedEvents", r.appliedEvents());
        if (r.error() != null) {
            out.put("error", r.error());
        }
        service.timings(id).ifPresent(t -> {
            out.put("phaseMillis", JSON.readTree(t.phaseMillisJson()));
            out.put("stepMillis", JSON.readTree(t.stepMillisJson()));
        });
        return out;
    }
}
