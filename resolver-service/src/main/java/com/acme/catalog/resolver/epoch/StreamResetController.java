package com.acme.catalog.resolver.epoch;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.RotateRequest;
import com.acme.catalog.contracts.epoch.RotateResponse;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /v1/streams/{tenant}/{catalog}/reset} (operator): a new epoch that starts empty ({@link StreamReset}). */
@Tag(name = "Epochs")
@RestController
class StreamResetController {

    private final StreamReset reset;

    StreamResetController(StreamReset reset) {
        this.reset = reset;
    }

    @Operation(operationId = "resetStream", summary = "Reset a stream to an empty new epoch",
            description = "Issues the next epoch in the control store starting from nothing, fences the old cursor as "
                    + "a rotation does, opens the new one at 0 and removes the stream's items, mappings, policies, "
                    + "releases and revisions; old-epoch positions are never used again. Needs maintenance (409 "
                    + "MAINTENANCE_REQUIRED); 409 STREAM_HAS_DECISIONS when review decisions cite its revisions.")
    @PostMapping("/v1/streams/{tenant}/{catalog}/reset")
    RotateResponse reset(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody RotateRequest request) {
        StreamId s = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.OPERATOR);
        return new RotateResponse(reset.reset(s, request.reason(), caller.name()));
    }
}
