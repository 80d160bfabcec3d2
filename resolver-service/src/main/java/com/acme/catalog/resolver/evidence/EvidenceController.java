package com.acme.catalog.resolver.evidence;

import java.io.IOException;
import java.net.URI;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidIds;
import com.acme.catalog.contracts.evidence.ArtifactReceipt;
import com.acme.catalog.contracts.evidence.ArtifactView;
import com.acme.catalog.contracts.evidence.FixtureRequest;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.io.InputStreamResource;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Evidence intake and reads, tenant-scoped: writers of the tenant send, writers and operators read. */
@Tag(name = "Evidence", description = "Evidence artifacts of a tenant: intake, metadata and bytes")
@RestController
@RequestMapping("/v1/tenants/{tenant}/evidence")
class EvidenceController {

    private final EvidenceIntake intake;
    private final ArtifactRepository artifacts;
    private final ObjectStore store;

    EvidenceController(EvidenceIntake intake, ArtifactRepository artifacts, ObjectStore store) {
        this.intake = intake;
        this.artifacts = artifacts;
        this.store = store;
    }

    /** The raw body is the artifact; 201 for new bytes, 200 for bytes the tenant already has. */
    @Operation(summary = "Store an evidence artifact",
            description = "The raw body is the artifact, its Content-Type kept. 201 for new bytes, 200 for bytes the "
                    + "tenant already has. Role writer of the tenant.")
    @ApiResponse(responseCode = "201", description = "Stored: a new artifact")
    @ApiResponse(responseCode = "200", description = "The tenant already has these bytes: the same artifact")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, description = "the artifact's bytes",
            content = @Content(mediaType = "application/octet-stream", schema = @Schema(types = "string",
                    format = "binary")))
    @PostMapping
    ResponseEntity<ArtifactReceipt> receive(@PathVariable String tenant, HttpServletRequest request)
            throws IOException {
        StreamId.requirePart("tenant", tenant);
        Caller caller = Access.require(tenant, Role.WRITER);
        if (request.getContentLengthLong() == 0) {
            throw new ApiException(ProblemCode.INVALID_BODY, "evidence must not be empty");
        }
        EvidenceIntake.Received r = intake.receive(tenant, request.getContentType(), request.getInputStream(),
                caller.name());
        Artifact a = r.artifact();
        ArtifactReceipt receipt = new ArtifactReceipt(a.artifactId(), a.sha256(), a.bytes(), a.contentType());
        if (!r.created()) {
            return ResponseEntity.ok(receipt);
        }
        return ResponseEntity.created(URI.create(request.getRequestURI() + "/" + a.artifactId())).body(receipt);
    }

    @Operation(operationId = "artifactMetadata", summary = "Read an artifact's metadata",
            description = "Status PRESENT, MISSING or EXPIRED. Roles operator and writer of the tenant.")
    @GetMapping("/{artifactId}")
    ArtifactView metadata(@PathVariable String tenant, @PathVariable String artifactId) {
        return readable(tenant, artifactId).view();
    }

    /**
     * The stored bytes as an opaque attachment ({@link AttachmentHeaders}), never as the type they were uploaded
     * with; 404 while the object is missing or after expiry.
     */
    @Operation(operationId = "artifactContent", summary = "Read an artifact's bytes",
            description = "The stored bytes, always as application/octet-stream and as an attachment (nosniff, "
                    + "sandboxed), whatever type they were uploaded with: evidence is untrusted content and is never "
                    + "rendered from the API's origin. The stored type is in the Evidence-Content-Type header. 404 "
                    + "while the object is missing or after expiry. Roles operator and writer of the tenant.")
    @ApiResponse(responseCode = "200", description = "The bytes as an attachment",
            content = @Content(mediaType = "application/octet-stream", schema = @Schema(types = "string",
                    format = "binary")),
            headers = {
                    @Header(name = "Content-Disposition", description = "always attachment, named after the "
                            + "artifact id", schema = @Schema(types = "string", example = "attachment; "
                            + "filename=\"3f0c…\"")),
                    @Header(name = "X-Content-Type-Options", description = "always nosniff",
                            schema = @Schema(types = "string", allowableValues = "nosniff")),
                    @Header(name = "Content-Security-Policy", description = "always sandbox",
                            schema = @Schema(types = "string", allowableValues = "sandbox")),
                    @Header(name = AttachmentHeaders.STORED_TYPE, description = "the content type the artifact "
                            + "was stored with (as in its metadata's contentType)",
                            schema = @Schema(types = "string", example = "text/html;charset=utf-8"))})
    @GetMapping("/{artifactId}/content")
    ResponseEntity<InputStreamResource> content(@PathVariable String tenant, @PathVariable String artifactId)
            throws IOException {
        Artifact a = readable(tenant, artifactId);
        if (a.expiredAt() != null) {
            throw new ApiException(ProblemCode.NOT_FOUND, "evidence artifact " + artifactId + " expired at "
                    + a.expiredAt() + "; its bytes are deleted");
        }
        try {
            return ResponseEntity.ok().headers(AttachmentHeaders.of(a)).body(new InputStreamResource(store.get(a.objectKey())));
        } catch (ObjectStore.NoSuchObjectException e) {
            throw new ApiException(ProblemCode.NOT_FOUND, "the object of evidence artifact " + artifactId
                    + " is missing from the store (evidence retention flags it)");
        }
    }

    /** Marks or unmarks a regression fixture, kept whatever references it has. */
    @Operation(operationId = "markFixture", summary = "Mark an artifact as a regression fixture",
            description = "A fixture is kept whatever references it has; fixture=false unmarks it. Roles operator and "
                    + "writer of the tenant.")
    @PutMapping("/{artifactId}/fixture")
    ArtifactView fixture(@PathVariable String tenant, @PathVariable String artifactId,
            @RequestBody FixtureRequest body) {
        StreamId.requirePart("tenant", tenant);
        Access.require(tenant, Role.OPERATOR, Role.WRITER);
        UUID id = artifactId(artifactId);
        return artifacts.setFixture(tenant, id, body.fixture()).map(Artifact::view).orElseThrow(() ->
                artifacts.find(tenant, id).isPresent()
                        ? new ApiException(ProblemCode.EVIDENCE_EXPIRED, "evidence artifact " + id + " has expired")
                        : notFound(tenant, id));
    }

    private Artifact readable(String tenant, String artifactId) {
        StreamId.requirePart("tenant", tenant);
        Access.require(tenant, Role.OPERATOR, Role.WRITER);
        UUID id = artifactId(artifactId);
        return artifacts.find(tenant, id).orElseThrow(() -> notFound(tenant, id));
    }

    static UUID artifactId(String value) {
        return UuidIds.parse("artifactId", value);
    }

    private static ApiException notFound(String tenant, UUID id) {
        return new ApiException(ProblemCode.NOT_FOUND, "tenant " + tenant + " has no evidence artifact " + id);
    }
}
