package com.acme.catalog.resolver.stream;

import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.CursorView;
import com.acme.catalog.contracts.stream.TransactionAnswer;
import com.acme.catalog.contracts.stream.WriteAnswer;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Writes to accepted state and the stream cursor read. */
@Tag(name = "Streams", description = "Writes to a stream's accepted state and its cursor")
@RestController
@RequestMapping("/v1/streams/{tenant}/{catalog}")
class StreamController {

    private final StreamWriter writer;
    private final CursorRepository cursors;
    private final List<PrunedThroughSource> prunedThrough;
    private final ObjectMapper json;

    StreamController(StreamWriter writer, CursorRepository cursors, List<PrunedThroughSource> prunedThrough,
            ObjectMapper json) {
        this.writer = writer;
        this.cursors = cursors;
        this.prunedThrough = prunedThrough;
        this.json = json;
    }

    @Operation(summary = "Upsert an item",
            description = "Writes the item's attributes as its next revision; expectedRevision (optional) makes it "
                    + "conditional. Role writer.")
    @PutMapping("/items/{itemId}")
    WriteAnswer putItem(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String itemId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, body);
        return single(writer.write(s, new LogicalWrite(List.of(ChangeParser.upsertItem(itemId, body)), key),
                bytes(request)));
    }

    @Operation(summary = "Delete an item",
            description = "Role writer; expectedRevision (query, optional) makes it conditional.")
    @DeleteMapping("/items/{itemId}")
    WriteAnswer deleteItem(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String itemId, @RequestParam(required = false) Integer expectedRevision,
            HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, null);
        return single(writer.write(s, new LogicalWrite(List.of(ChangeParser.deleteItem(itemId, expectedRevision)),
                key), bytes(request)));
    }

    @Operation(summary = "Upsert a mapping", description = "Role writer.")
    @PutMapping("/mappings/{mappingId}")
    WriteAnswer putMapping(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String mappingId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, body);
        return single(writer.write(s, new LogicalWrite(List.of(ChangeParser.upsertMapping(mappingId, body)), key),
                bytes(request)));
    }

    @Operation(summary = "Upsert a policy", description = "Role writer.")
    @PutMapping("/policies/{policyId}")
    WriteAnswer putPolicy(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String policyId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, body);
        return single(writer.write(s, new LogicalWrite(List.of(ChangeParser.upsertPolicy(policyId, body)), key),
                bytes(request)));
    }

    @Operation(summary = "Publish a release",
            description = "Releases item revisions, PRIVATE or PUBLIC (the product serves PUBLIC ones). Role writer.")
    @PutMapping("/releases/{releaseId}")
    WriteAnswer putRelease(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String releaseId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, body);
        return single(writer.write(s, new LogicalWrite(List.of(ChangeParser.putRelease(releaseId, body)), key),
                bytes(request)));
    }

    @Operation(summary = "Write a transaction",
            description = "Several changes as one logical transaction at contiguous positions, all or nothing. Role "
                    + "writer.")
    @PostMapping("/transactions")
    TransactionAnswer transaction(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        IdempotencyKey key = key(request, body);
        WriteResult r = writer.write(s, new LogicalWrite(ChangeParser.transaction(body), key), bytes(request));
        return new TransactionAnswer(r.epoch(), r.firstPosition(), r.lastPosition(), r.transactionId());
    }

    @Operation(summary = "Read the stream's cursor",
            description = "Epoch, position, chain digest and how far the outbox is pruned. Roles operator, writer, "
                    + "consumer, relay.")
    @GetMapping("/cursor")
    CursorView cursor(@PathVariable String tenant, @PathVariable String catalog) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.WRITER, Role.CONSUMER, Role.RELAY);
        Cursor c = cursors.read(s).orElseThrow(
                () -> new ApiException(ProblemCode.NOT_FOUND, "stream " + s + " has no cursor yet"));
        return new CursorView(c.epoch(), c.position(), c.chainDigest() == null ? ChainDigest.ZERO : c.chainDigest(),
                prunedThrough.stream().mapToLong(p -> p.prunedThrough(s, c.epoch())).max().orElse(0L));
    }

    private static StreamId authorizedWrite(String tenant, String catalog) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.WRITER);
        return s;
    }

    /**
     * The request's {@code Idempotency-Key} (null: none), checked before anything is parsed or written; its
     * fingerprint covers method, path, query and the body as parsed.
     */
    private IdempotencyKey key(HttpServletRequest request, JsonNode body) {
        return IdempotencyKey.of(request, Access.caller().name(),
                () -> body == null ? null : json.writeValueAsBytes(body));
    }

    /** The request body's size as sent, for the coalescing byte bound (0 when the client did not say). */
    private static long bytes(HttpServletRequest request) {
        return Math.max(0, request.getContentLengthLong());
    }

    private static WriteAnswer single(WriteResult r) {
        return new WriteAnswer(r.epoch(), r.lastPosition(), r.transactionId(), r.revision());
    }
}
