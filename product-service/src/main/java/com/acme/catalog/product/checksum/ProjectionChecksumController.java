package com.acme.catalog.product.checksum;

import java.util.Map;
import java.util.Optional;

import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.contracts.checksum.ChecksumProfile;
import com.acme.catalog.platform.checksum.ChecksumQuery;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET …/projection-checksum?profile=}: the serving generation's cursor and its profile checksums, read in one
 * REPEATABLE READ READ ONLY snapshot. {@code position} is the generation's contiguous processed position, so
 * the answer compares with the resolver's state-checksum at the same position. A stream without a serving
 * generation answers like an empty resolver stream (epoch 1, position 0, empty tables).
 */
@Tag(name = "Checksums", description = "Checksums of the projection, to compare with the resolver")
@RestController
class ProjectionChecksumController {

    private final TransactionTemplate snapshot;
    private final GenerationRepository generations;
    private final ProjectionChecksumRepository checksums;

    ProjectionChecksumController(PlatformTransactionManager tm, GenerationRepository generations,
            ProjectionChecksumRepository checksums) {
        this.snapshot = Snapshots.readOnly(tm);
        this.generations = generations;
        this.checksums = checksums;
    }

    /** {@code profile}: {@code accepted-state-v1} (the default) or {@code public-view-v1}; anything else is 400. */
    @Operation(operationId = "projectionChecksum", summary = "Checksum the projection",
            description = "Same shape and profile as the resolver's state-checksum, over the serving generation's "
                    + "copy of accepted state.")
    @GetMapping("/v1/streams/{tenant}/{catalog}/projection-checksum")
    ChecksumAnswer projectionChecksum(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) String profile) {
        StreamId s = new StreamId(tenant, catalog);
        Access.require(tenant, Role.OPERATOR, Role.WRITER, Role.CONSUMER);
        ChecksumProfile p = ChecksumProfile.named(profile);
        return snapshot.execute(status -> {
            Optional<GenerationCursor> serving = generations.serving(s);
            Map<String, TableChecksum> tables = serving.isPresent()
                    ? checksums.compute(serving.get().generationId(), p) : ChecksumQuery.empty(p);
            return ChecksumAnswer.of(serving.map(GenerationCursor::epoch).orElse(1L),
                    serving.map(GenerationCursor::appliedPosition).orElse(0L), p, tables);
        });
    }
}
