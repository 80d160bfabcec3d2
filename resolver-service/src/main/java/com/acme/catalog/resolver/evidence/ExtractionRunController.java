package com.acme.catalog.resolver.evidence;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.evidence.ExtractionRunCreated;
import com.acme.catalog.contracts.evidence.ExtractionRunRequest;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /v1/streams/{tenant}/{catalog}/extraction-runs} (role writer of the tenant). */
@Tag(name = "Evidence")
@RestController
class ExtractionRunController {

    private final ExtractionRuns runs;

    ExtractionRunController(ExtractionRuns runs) {
        this.runs = runs;
    }

    @Operation(operationId = "createExtractionRun", summary = "Record an extraction run",
            description = "The claims an extractor read from an artifact, for review cases to cite. Role writer of "
                    + "the tenant.")
    @PostMapping("/v1/streams/{tenant}/{catalog}/extraction-runs")
    @ResponseStatus(HttpStatus.CREATED)
    ExtractionRunCreated create(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody ExtractionRunRequest body) {
        StreamId stream = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.WRITER);
        return runs.record(stream, body, caller.name());
    }
}
