package com.acme.catalog.resolver.stream;

import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.CursorView;
import com.acme.catalog.contracts.stream.TransactionAnswer;
import com.acme.catalog.contracts.stream.WriteAnswer;
import com.acme.catalog.contracts.web.Access;
import com.acme.catalog.contracts.web.Role;

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

/** Writes to accepted state and the stream cursor read. */
@RestController
@RequestMapping("/v1/streams/{tenant}/{catalog}")
class StreamController {

    private final StreamWriter writer;
    private final CursorRepository cursors;
    private final List<PrunedThroughSource> prunedThrough;

    StreamController(StreamWriter writer, CursorRepository cursors, List<PrunedThroughSource> prunedThrough) {
        this.writer = writer;
        this.cursors = cursors;
        this.prunedThrough = prunedThrough;
    }

    @PutMapping("/items/{itemId}")
    WriteAnswer putItem(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String itemId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        return single(writer.write(s, List.of(ChangeParser.upsertItem(itemId, body)), bytes(request)));
    }

    @DeleteMapping("/items/{itemId}")
    WriteAnswer deleteItem(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String itemId, @RequestParam(required = false) Integer expectedRevision,
            HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        return single(writer.write(s, List.of(ChangeParser.deleteItem(itemId, expectedRevision)), bytes(request)));
    }

    @PutMapping("/mappings/{mappingId}")
    WriteAnswer putMapping(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String mappingId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        return single(writer.write(s, List.of(ChangeParser.upsertMapping(mappingId, body)), bytes(request)));
    }

    @PutMapping("/policies/{policyId}")
    WriteAnswer putPolicy(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String policyId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        return single(writer.write(s, List.of(ChangeParser.upsertPolicy(policyId, body)), bytes(request)));
    }

    @PutMapping("/releases/{releaseId}")
    WriteAnswer putRelease(@PathVariable String tenant, @PathVariable String catalog,
            @PathVariable String releaseId, @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        return single(writer.write(s, List.of(ChangeParser.putRelease(releaseId, body)), bytes(request)));
    }

    @PostMapping("/transactions")
    TransactionAnswer transaction(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody JsonNode body, HttpServletRequest request) {
        StreamId s = authorizedWrite(tenant, catalog);
        WriteResult r = writer.write(s, ChangeParser.transaction(body), bytes(request));
        return new TransactionAnswer(r.epoch(), r.firstPosition(), r.lastPosition(), r.transactionId());
    }

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

    /** The request body's size as sent, for the coalescing byte bound (0 when the client did not say). */
    private static long bytes(HttpServletRequest request) {
        return Math.max(0, request.getContentLengthLong());
    }

    private static WriteAnswer single(WriteResult r) {
        return new WriteAnswer(r.epoch(), r.lastPosition(), r.transactionId(), r.revision());
    }
}
