package com.acme.catalog.resolver.evidence;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.evidence.ClaimInput;
import com.acme.catalog.contracts.evidence.ExtractionRunCreated;
import com.acme.catalog.contracts.evidence.ExtractionRunRequest;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * Records an extraction run and its claims over one artifact of the stream's tenant, in one transaction that first
 * refreshes the artifact's activity (row lock: an expiry of the artifact either waits for it and then keeps the
 * artifact, or committed first and the run is refused). No cursor lock: claims change no exported state.
 */
@Service
class ExtractionRuns {

    private final TransactionTemplate tx;
    private final ArtifactRepository artifacts;
    private final ClaimRepository claims;
    private final ObjectMapper json;

    ExtractionRuns(TransactionTemplate tx, ArtifactRepository artifacts, ClaimRepository claims, ObjectMapper json) {
        this.tx = tx;
        this.artifacts = artifacts;
        this.claims = claims;
        this.json = json;
    }

    ExtractionRunCreated record(StreamId stream, ExtractionRunRequest request, String createdBy) {
        UUID runId = UuidV7.next();
        List<ClaimRepository.NewClaim> rows = new ArrayList<>(request.claims().size());
        for (ClaimInput c : request.claims()) {
            rows.add(new ClaimRepository.NewClaim(UuidV7.next(), c.aggregateType(), c.aggregateId(), c.field(),
                    json.writeValueAsString(c.value())));
        }
        String unmapped = json.writeValueAsString(request.unmappedFields());
        tx.executeWithoutResult(status -> {
            if (!artifacts.touch(stream.tenant(), request.artifactId())) {
                throw artifacts.find(stream.tenant(), request.artifactId()).isPresent()
                        ? new ApiException(ProblemCode.EVIDENCE_EXPIRED, "evidence artifact " + request.artifactId()
                                + " has expired")
                        : new ApiException(ProblemCode.NOT_FOUND, "tenant " + stream.tenant()
                                + " has no evidence artifact " + request.artifactId());
            }
            claims.insertRun(runId, stream, request.artifactId(), request.extractor(), unmapped, createdBy);
            claims.insertClaims(runId, stream, request.artifactId(), rows);
        });
        return new ExtractionRunCreated(runId, rows.stream().map(ClaimRepository.NewClaim::claimId).toList());
    }
}
