package com.acme.catalog.resolver.export;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.web.Access;
import com.acme.catalog.contracts.web.Caller;
import com.acme.catalog.contracts.web.Role;
import com.acme.catalog.resolver.export.ExportRepository.ExportRow;
import com.acme.catalog.resolver.retention.RetentionService;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * CONTRACT export endpoints. Role {@code operator}, or {@code consumer} (the product) for tenants its token may
 * access and only with a lease its token identity took (status and manifest: an export it started); the catch-up
 * endpoint is {@link CatchUpController}.
 */
@RestController
class ExportController {

    private final ExportService service;
    private final RetentionService retention;

    ExportController(ExportService service, RetentionService retention) {
        this.service = service;
        this.retention = retention;
    }

    @PostMapping("/v1/exports")
    ResponseEntity<Map<String, Object>> start(@RequestBody JsonNode body) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        if (body == null || !body.isObject()) {
            throw new ApiException(ProblemCode.INVALID_BODY, "body must be a JSON object {tenant, catalog, leaseId}");
        }
        StreamId stream = new StreamId(text(body, "tenant"), text(body, "catalog"));
        UUID leaseId = uuid("leaseId", text(body, "leaseId"));
        Caller caller = Access.require(stream.tenant(), Role.OPERATOR, Role.CONSUMER);
        retention.requireLeaseUser(leaseId, caller); // before the pin moves: another token's lease is not touched
        ExportRow row = service.start(stream, leaseId, caller.name());
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(json(row));
    }

    @GetMapping("/v1/exports/{exportId}")
    Map<String, Object> status(@PathVariable String exportId) {
        return json(authorized(exportId));
    }

    @GetMapping("/v1/exports/{exportId}/manifest")
    ResponseEntity<byte[]> manifest(@PathVariable String exportId) {
        ExportRow row = authorized(exportId);
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(service.manifest(row));
    }

    private ExportRow authorized(String exportId) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        ExportRow row = service.find(uuid("exportId", exportId));
        Caller caller = Access.require(row.stream().tenant(), Role.OPERATOR, Role.CONSUMER);
        if (!caller.has(Role.OPERATOR) && !caller.name().equals(row.requestedBy())) {
            throw new ApiException(ProblemCode.FORBIDDEN, "export " + exportId + " was started by another token");
        }
        return row;
    }

    private static Map<String, Object> json(ExportRow row) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("exportId", row.exportId().toString());
        out.put("status", row.status().name());
        out.put("tenant", row.stream().tenant());
        out.put("catalog", row.stream().catalog());
        out.put("epoch", row.epoch());
        out.put("leaseId", row.leaseId().toString());
        if (row.cursor() != null) {
            out.put("cursor", row.cursor());
            out.put("chainDigest", row.chainDigest());
        }
        if (row.manifestKey() != null) {
            out.put("manifestKey", row.manifestKey());
        }
        if (row.error() != null) {
            out.put("error", row.error());
        }
        Map<String, Object> progress = new LinkedHashMap<>();
        progress.put("phase", row.phase());
        progress.put("rowsWritten", row.rows());
        progress.put("bytesWritten", row.bytes());
        progress.put("heartbeatAt", row.heartbeatAt().toString());
        out.put("progress", progress);
        out.put("requestedBy", row.requestedBy());
        out.put("createdAt", row.createdAt().toString());
        if (row.finishedAt() != null) {
            out.put("finishedAt", row.finishedAt().toString());
        }
        return out;
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isString()) {
            throw new ApiException(ProblemCode.INVALID_BODY, field + " is required and must be a string");
        }
        return v.stringValue();
    }

    static UUID uuid(String what, String value) {
        if (value == null || value.length() != 36) {
            throw new InvalidIdException(what, value, "must be a UUID");
        }
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(what, value, "must be a UUID");
        }
    }
}
