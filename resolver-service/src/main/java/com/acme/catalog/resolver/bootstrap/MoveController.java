package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The source side of a stream's move to another resolver database (operator; {@link StreamMoves},
 * docs/runbooks/move-stream.md, driven by {@code bin/move-stream.sh}).
 */
@Tag(name = "Bootstrap")
@RestController
class MoveController {

    private final StreamMoves moves;

    MoveController(StreamMoves moves) {
        this.moves = moves;
    }

    @Operation(operationId = "beginMove", summary = "Start moving a stream to another resolver database",
            description = "From this answer on every write of the stream is refused (409 STREAM_MOVING, nothing "
                    + "written); its export goes on. Repeating it with the same target answers the same. 409 "
                    + "IMPORT_IN_PROGRESS while an import holds the stream, STREAM_MOVING while it moves elsewhere; "
                    + "410 STREAM_MOVED once moved. Role operator.")
    @PostMapping("/v1/streams/{tenant}/{catalog}/move")
    StreamMoves.MoveView begin(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody StreamMoves.MoveRequest request) {
        StreamId s = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.OPERATOR);
        return moves.begin(s, request.target(), request.reason(), caller.name());
    }

    @Operation(operationId = "completeMove", summary = "Retire a moved stream here for good",
            description = "After the target verified the import: writes answer 410 STREAM_MOVED with location (the "
                    + "target), the relay delivers nothing more of the stream. 404 without a move under way; 409 "
                    + "STREAM_MOVING for another target. Role operator.")
    @PostMapping("/v1/streams/{tenant}/{catalog}/move/complete")
    StreamMoves.MoveView complete(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody StreamMoves.MoveRequest request) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR);
        return moves.complete(s, request.target());
    }

    @Operation(operationId = "cancelMove", summary = "Cancel a move before it completed",
            description = "The stream takes writes again. 404 without a move under way; 410 STREAM_MOVED once "
                    + "completed (final). Role operator.")
    @DeleteMapping("/v1/streams/{tenant}/{catalog}/move")
    StreamMoves.MoveView cancel(@PathVariable String tenant, @PathVariable String catalog) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR);
        return moves.cancel(s);
    }
}
