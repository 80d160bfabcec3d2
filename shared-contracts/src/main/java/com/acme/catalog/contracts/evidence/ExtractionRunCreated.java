package com.acme.catalog.contracts.evidence;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

/** The answer to a new extraction run: its id and one claim id per claim, in request order. */
public record ExtractionRunCreated(UUID runId, List<UUID> claimIds) {

    public ExtractionRunCreated {
        Objects.requireNonNull(runId, "runId");
        claimIds = List.copyOf(claimIds);
    }
}
