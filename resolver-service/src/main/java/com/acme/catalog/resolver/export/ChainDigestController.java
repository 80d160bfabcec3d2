package com.acme.catalog.resolver.export;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/streams/{tenant}/{catalog}/chain-digest?position=&epoch=} (role {@code operator} or
 * {@code consumer}, tenant-scoped): the chain digest at one position of the open epoch, so a consumer can prove
 * that the copy it verified up to that position is the resolver's history (docs/exports.md).
 */
@Tag(name = "Checksums")
@RestController
class ChainDigestController {

    private final CatchUpService service;

    ChainDigestController(CatchUpService service) {
        this.service = service;
    }

    @Operation(operationId = "chainDigest", summary = "Read the chain digest at a position",
            description = "So a consumer can prove that the copy it verified up to a position is the resolver's "
                    + "history.")
    @GetMapping("/v1/streams/{tenant}/{catalog}/chain-digest")
    ChainDigestAt chainDigest(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) String position, @RequestParam(required = false) String epoch) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.CONSUMER);
        long at = number("position", position, 0);
        Long in = epoch == null ? null : number("epoch", epoch, 1);
        return service.digestAt(s, in, at);
    }

    private static long number(String name, String value, long min) {
        if (value == null) {
            throw new ApiException(ProblemCode.INVALID_BODY, name + " is required");
        }
        try {
            long v = Long.parseLong(value);
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw new ApiException(ProblemCode.INVALID_BODY, name + " must be an integer >= " + min);
    }
}
