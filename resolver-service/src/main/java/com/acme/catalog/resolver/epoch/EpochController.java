package com.acme.catalog.resolver.epoch;

import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.EpochStatus;
import com.acme.catalog.contracts.epoch.RotateRequest;
import com.acme.catalog.contracts.epoch.RotateResponse;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;
import com.acme.catalog.resolver.stream.CursorRepository;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/epochs/{tenant}/{catalog}} (roles operator and consumer: a product reads the current epoch here)
 * and {@code POST …/rotate} (operator). Both read the control store itself, not this instance's cache.
 */
@Tag(name = "Epochs", description = "History epochs from the control store")
@RestController
@RequestMapping("/v1/epochs/{tenant}/{catalog}")
class EpochController {

    private final EpochRepository epochs;
    private final EpochRotation rotation;
    private final CursorRepository cursors;

    EpochController(EpochRepository epochs, EpochRotation rotation, CursorRepository cursors) {
        this.epochs = epochs;
        this.rotation = rotation;
        this.cursors = cursors;
    }

    /**
     * The current epoch, its high-water mark as recorded and the full history. A stream the store does not know
     * yet gets the epoch of its open cursor as its first (an upgraded database: 1); one nobody wrote is in epoch 1.
     */
    @Operation(operationId = "epochStatus", summary = "Read a stream's epochs",
            description = "The current epoch, its high-water mark and the full history, read from the control store.")
    @GetMapping
    EpochStatus status(@PathVariable String tenant, @PathVariable String catalog) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.CONSUMER);
        Current current = epochs.current(s).orElseGet(() -> cursors.read(s)
                .map(open -> epochs.issueFirst(s, open.epoch(), EpochCache.INITIAL_REASON, EpochCache.RESOLVER_ISSUER))
                .orElse(null));
        if (current == null) {
            return new EpochStatus(1, null, 0, List.of());
        }
        return new EpochStatus(current.epoch(), current.issuedAt(), current.highWaterMark(), epochs.history(s));
    }

    @Operation(operationId = "rotateEpoch", summary = "Rotate a stream's epoch",
            description = "Issues the next epoch, fences the old cursor and opens the new one at 0. Needs maintenance "
                    + "(409 MAINTENANCE_REQUIRED).")
    @PostMapping("/rotate")
    RotateResponse rotate(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody RotateRequest request) {
        StreamId s = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.OPERATOR);
        return new RotateResponse(rotation.rotate(s, request.reason(), caller.name()));
    }
}
