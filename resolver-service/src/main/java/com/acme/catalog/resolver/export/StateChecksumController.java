package com.acme.catalog.resolver.export;

import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.contracts.checksum.ChecksumProfile;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET …/state-checksum?profile=}: cursor and profile checksums read in one REPEATABLE READ READ ONLY snapshot.
 */
@Tag(name = "Checksums", description = "Checksums of accepted state, to compare copies")
@RestController
class StateChecksumController {

    private final TransactionTemplate snapshot;
    private final CursorRepository cursors;
    private final StateChecksumRepository checksums;

    StateChecksumController(PlatformTransactionManager tm, CursorRepository cursors,
            StateChecksumRepository checksums) {
        this.snapshot = Snapshots.readOnly(tm);
        this.cursors = cursors;
        this.checksums = checksums;
    }

    /** {@code profile}: {@code accepted-state-v1} (the default) or {@code public-view-v1}; anything else is 400. */
    @Operation(operationId = "stateChecksum", summary = "Checksum the stream's accepted state",
            description = "Cursor and per-table checksums read in one snapshot; profile accepted-state-v1 (the "
                    + "default) or public-view-v1.")
    @GetMapping("/v1/streams/{tenant}/{catalog}/state-checksum")
    ChecksumAnswer stateChecksum(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) String profile) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.WRITER, Role.CONSUMER);
        ChecksumProfile p = ChecksumProfile.named(profile);
        return snapshot.execute(status -> {
            Cursor c = cursors.read(s).orElse(null);
            return ChecksumAnswer.of(c == null ? 1 : c.epoch(), c == null ? 0 : c.position(), p,
                    checksums.compute(s, p));
        });
    }
}
