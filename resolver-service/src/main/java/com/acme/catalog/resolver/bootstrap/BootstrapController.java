package com.acme.catalog.resolver.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Problems;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /v1/streams/{tenant}/{catalog}/bootstrap-import} (operator): the body is the events.json array. The
 * body is spooled to a temporary file (it is read twice: validation, then writing), never held as a tree.
 * Answers 200 with the import summary; problems carry the first bad event's {@code index} and {@code eventId},
 * or, after a failed chunk, the partial {@code import} summary.
 */
@Tag(name = "Bootstrap", description = "Loading a stream's history from an events.json export")
@RestController
class BootstrapController {

    private final BootstrapImporter importer;

    BootstrapController(BootstrapImporter importer) {
        this.importer = importer;
    }

    @Operation(operationId = "bootstrapImport", summary = "Import a stream's history",
            description = "The body is an events.json array; an empty stream only. Problems carry the first bad "
                    + "event's index and eventId. Role operator.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, description = "the events.json array",
            content = @Content(mediaType = "application/json", schema = @Schema(types = "array")))
    @PostMapping("/v1/streams/{tenant}/{catalog}/bootstrap-import")
    ImportSummary importEvents(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) Integer chunkEvents, @RequestParam(required = false) Long chunkBytes,
            @RequestParam(required = false) Long maxEventBytes,
            @RequestParam(defaultValue = "false") boolean synchronousCommitOff,
            @RequestParam(defaultValue = "false") boolean diagnoseFailedChunk,
            HttpServletRequest request) throws IOException {
        StreamId stream = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR);
        ImportOptions options = options(chunkEvents, chunkBytes, maxEventBytes, synchronousCommitOff,
                diagnoseFailedChunk);
        Path spool = Files.createTempFile("bootstrap-import-", ".json");
        try {
            try (InputStream body = request.getInputStream()) {
                Files.copy(body, spool, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            return importer.importFile(stream, spool, options, ImportListener.NONE).summary();
        } finally {
            Files.deleteIfExists(spool);
        }
    }

    private static ImportOptions options(Integer chunkEvents, Long chunkBytes, Long maxEventBytes,
            boolean synchronousCommitOff, boolean diagnoseFailedChunk) {
        try {
            ImportOptions o = ImportOptions.defaults().withSynchronousCommitOff(synchronousCommitOff)
                    .withDiagnoseFailedChunk(diagnoseFailedChunk);
            if (chunkEvents != null) {
                o = o.withChunkEvents(chunkEvents);
            }
            if (chunkBytes != null) {
                o = o.withChunkBytes(chunkBytes);
            }
            if (maxEventBytes != null) {
                o = o.withMaxEventBytes(maxEventBytes);
            }
            return o;
        } catch (IllegalArgumentException e) {
            throw new ApiException(ProblemCode.INVALID_BODY, e.getMessage());
        }
    }

    // The two problem answers stay maps: Problems.body is the one problem builder of both services, and these add
    // one or two members to it (the first bad event, or the summary of what was committed)
    @ExceptionHandler(RejectedEventException.class)
    ResponseEntity<Map<String, Object>> rejected(RejectedEventException e, HttpServletRequest request) {
        Map<String, Object> body = Problems.body(e.code(), e.getMessage(), request.getRequestURI());
        body.put("index", e.index());
        body.put("eventId", e.eventId());
        return ResponseEntity.status(e.code().status()).contentType(Problems.PROBLEM_JSON).body(body);
    }

    @ExceptionHandler(ImportFailedException.class)
    ResponseEntity<Map<String, Object>> failed(ImportFailedException e, HttpServletRequest request) {
        Map<String, Object> body = Problems.body(e.code(), e.getMessage(), request.getRequestURI());
        body.put("import", e.report().summary());
        return ResponseEntity.status(e.code().status()).contentType(Problems.PROBLEM_JSON).body(body);
    }
}
