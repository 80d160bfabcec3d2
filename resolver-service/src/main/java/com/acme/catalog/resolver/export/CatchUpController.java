package com.acme.catalog.resolver.export;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.export.CatchUpRepository.StoredEvent;
import com.acme.catalog.resolver.export.CatchUpService.Page;
import com.acme.catalog.resolver.retention.RetentionService;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/exports/events}: role {@code operator}, {@code consumer} or {@code relay}, limited to the tenants
 * of the token, and (but for an operator) with a lease the token's identity took. Each event is written as its stored wire text with the chain digest member appended; the wire is
 * never parsed or re-serialized, so clients can verify the chain over exactly the stored bytes.
 */
@Tag(name = "Exports")
@RestController
class CatchUpController {

    private final CatchUpService service;
    private final RetentionService retention;

    CatchUpController(CatchUpService service, RetentionService retention) {
        this.service = service;
        this.retention = retention;
    }

    @Operation(operationId = "catchUpEvents", summary = "Read a page of events",
            description = "Events after a position, each as its stored wire text with its chainDigest, so a client "
                    + "can verify the chain. Operator, consumer or relay, with a lease (but for an operator).")
    @ApiResponse(responseCode = "200", description = "A page of events",
            content = @Content(mediaType = "application/json", schema = @Schema(types = "object")))
    @GetMapping("/v1/exports/events")
    ResponseEntity<byte[]> events(@RequestParam(required = false) String tenant,
            @RequestParam(required = false) String catalog, @RequestParam(required = false) String after,
            @RequestParam(name = "lease_id", required = false) String leaseId,
            @RequestParam(name = "history_epoch", required = false) String historyEpoch,
            @RequestParam(required = false) String limit) {
        Access.require(Role.OPERATOR, Role.CONSUMER, Role.RELAY);
        StreamId s = new StreamId(tenant, catalog);
        Caller caller = Access.require(s.tenant(), Role.OPERATOR, Role.CONSUMER, Role.RELAY);
        long from = number("after", after, 0, true);
        UUID lease = ExportController.uuid("lease_id", leaseId);
        retention.requireLeaseUser(lease, caller);
        long epoch = number("history_epoch", historyEpoch, 1, true);
        Integer n = limit == null ? null : (int) Math.min(number("limit", limit, 1, false), Integer.MAX_VALUE);
        Page page = service.page(s, from, lease, epoch, n);
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                .body(json(page).getBytes(StandardCharsets.UTF_8));
    }

    /** Tenant and catalog are [a-z0-9-] and digests hex, so nothing here needs escaping but the wires, kept verbatim. */
    private static String json(Page p) {
        int size = 256 + p.events().stream().mapToInt(e -> e.wire().length() + 100).sum();
        StringBuilder b = new StringBuilder(size);
        b.append("{\"tenant\":\"").append(p.stream().tenant())
                .append("\",\"catalog\":\"").append(p.stream().catalog())
                .append("\",\"epoch\":").append(p.epoch())
                .append(",\"after\":").append(p.after())
                .append(",\"through\":").append(p.through())
                .append(",\"chainDigestAfter\":\"").append(p.chainDigestAfter())
                .append("\",\"chainDigestThrough\":\"").append(p.chainDigestThrough())
                .append("\",\"head\":").append(p.head())
                .append(",\"events\":[");
        boolean first = true;
        for (StoredEvent e : p.events()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(EventWire.withDigest(e.wire(), e.chainDigest()));
        }
        return b.append("]}").toString();
    }

    private static long number(String name, String value, long min, boolean required) {
        if (value == null) {
            if (required) {
                throw new ApiException(ProblemCode.INVALID_BODY, name + " is required");
            }
            return min;
        }
        try {
            long v = Long.parseLong(value);
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw new ApiException(ProblemCode.INVALID_BODY, name + " must be an integer >= " + min + ", got " + value);
    }
}
