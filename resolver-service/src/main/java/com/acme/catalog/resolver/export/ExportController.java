package com.acme.catalog.resolver.export;

import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportRequest;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.json.StrictJson;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.export.ExportRepository.ExportRow;
import com.acme.catalog.resolver.retention.RetentionService;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
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
 * The contract's export endpoints (docs/exports.md). Role {@code operator}, or {@code consumer} (the product) for
 * tenants its token may access and only with a lease its token identity took (status and manifest: an export it
 * started); the catch-up endpoint is {@link CatchUpController}.
 */
@Tag(name = "Exports", description = "Snapshot exports and the catch-up pages that follow them")
@RestController
class ExportController {

    private final ExportService service;
    private final RetentionService retention;

    ExportController(ExportService service, RetentionService retention) {
        this.service = service;
        this.retention = retention;
    }

    @Operation(operationId = "startExport", summary = "Start an export",
            description = "Writes the stream's accepted state at the lease's pin to the object store, with a "
                    + "manifest.")
    @ApiResponse(responseCode = "202", description = "Started")
    @PostMapping("/v1/exports")
    ResponseEntity<ExportView> start(@RequestBody JsonNode body) {
        Access.require(Role.OPERATOR, Role.CONSUMER);
        // bound after the role check, as every endpoint answers a caller without the role before its body
        ExportRequest request = StrictJson.bind(body, ExportRequest.class, " {tenant, catalog, leaseId}");
        StreamId stream = request.stream();
        UUID leaseId = request.lease();
        Caller caller = Access.require(stream.tenant(), Role.OPERATOR, Role.CONSUMER);
        retention.requireLeaseUser(leaseId, caller); // before the pin moves: another token's lease is not touched
        ExportRow row = service.start(stream, leaseId, caller.name());
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(json(row));
    }

    @Operation(operationId = "exportStatus", summary = "Read an export's status")
    @GetMapping("/v1/exports/{exportId}")
    ExportView status(@PathVariable String exportId) {
        return json(authorized(exportId));
    }

    @Operation(operationId = "exportManifest", summary = "Read an export's manifest",
            description = "409 EXPORT_NOT_READY before the export is READY.")
    @ApiResponse(responseCode = "200", description = "The manifest, as stored",
            content = @Content(mediaType = "application/json", schema = @Schema(types = "object")))
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

    private static ExportView json(ExportRow row) {
        return new ExportView(row.exportId(), row.status(), row.stream().tenant(), row.stream().catalog(),
                row.epoch(), row.leaseId(), row.cursor(), row.cursor() == null ? null : row.chainDigest(),
                row.manifestKey(), row.error(),
                new ExportView.Progress(row.phase(), row.rows(), row.bytes(), row.heartbeatAt()), row.requestedBy(),
                row.createdAt(), row.finishedAt(), row.status() == ExportStatus.FAILED ? row.permanent() : null);
    }

    static UUID uuid(String what, String value) {
        return ExportRequest.uuid(what, value);
    }
}
