package com.acme.catalog.resolver.epoch;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.RotationAccepted;
import com.acme.catalog.contracts.epoch.RotationRequest;
import com.acme.catalog.contracts.epoch.RotationStatus;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code POST /v1/epochs/rotations} and {@code GET /v1/epochs/rotations/{rotationId}} (role operator, every tenant):
 * fleet rotations ({@link RotationJobs}).
 */
@Tag(name = "Epochs")
@RestController
class RotationJobController {

    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final RotationJobs jobs;
    private final EpochController epochs;
    private final ObjectMapper json;

    RotationJobController(RotationJobs jobs, EpochController epochs, ObjectMapper json) {
        this.jobs = jobs;
        this.epochs = epochs;
        this.json = json;
    }

    @Operation(operationId = "startFleetRotation", summary = "Rotate the epochs of many streams",
            description = "Starts a job that rotates every stream of the scope (all, one tenant, or a list) exactly "
                    + "as POST /v1/epochs/{tenant}/{catalog}/rotate does, in batches; needs maintenance (409 "
                    + "MAINTENANCE_REQUIRED). The same Idempotency-Key and request answers the same job; the same "
                    + "scope while its job runs answers the running job; another scope while one runs is 409 "
                    + "ROTATION_RUNNING.",
            responses = @ApiResponse(responseCode = "202", description = "the job, running (or the one asked for "
                    + "before)", content = @Content(schema = @Schema(implementation = RotationAccepted.class))))
    @PostMapping("/v1/epochs/rotations")
    ResponseEntity<RotationAccepted> start(@RequestBody RotationRequest request, HttpServletRequest http) {
        Caller caller = Access.require(Role.OPERATOR);
        if (!caller.tenants().isEmpty()) {
            throw new ApiException(ProblemCode.FORBIDDEN, "a fleet rotation needs an operator token for every tenant");
        }
        IdempotencyKey key = IdempotencyKey.of(http, caller.name(), () -> json.writeValueAsBytes(request));
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(jobs.start(request, caller.name(), key));
    }

    /**
     * A job's progress. A tenant may be named {@code rotations}: a path whose second part is not a job id (a UUID)
     * is read as that tenant's stream ({@code GET /v1/epochs/rotations/{catalog}}), so its epochs stay readable; an
     * id of no job is 404.
     */
    @Operation(operationId = "fleetRotationStatus", summary = "Read a fleet rotation's progress",
            description = "Streams total, rotated and failed, rate and ETA, the first failures. (A path whose last "
                    + "part is not a UUID is the epochs of the stream rotations/{catalog}, as "
                    + "GET /v1/epochs/{tenant}/{catalog} answers them.)",
            responses = @ApiResponse(responseCode = "200", description = "the job",
                    content = @Content(schema = @Schema(implementation = RotationStatus.class))))
    @GetMapping("/v1/epochs/rotations/{rotationId}")
    Object status(@PathVariable String rotationId) {
        Optional<UUID> id = uuid(rotationId);
        if (id.isEmpty() && StreamId.isPart(rotationId)) {
            return epochs.status("rotations", rotationId);
        }
        Access.require(Role.OPERATOR);
        return id.flatMap(jobs::status).orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND,
                "no fleet rotation " + rotationId));
    }

    /** A job id: a UUID in its canonical text (UUID.fromString alone would take "1-1-1-1-1"). */
    private static Optional<UUID> uuid(String text) {
        if (!UUID_TEXT.matcher(text).matches()) {
            return Optional.empty();
        }
        return Optional.of(UUID.fromString(text));
    }
}
