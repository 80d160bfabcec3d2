package com.acme.catalog.contracts.rebuild;

import java.util.Objects;
import java.util.UUID;

/** The 202 answer of {@code POST /v1/rebuilds}: the id to follow at {@code GET /v1/rebuilds/{rebuildId}}. */
public record RebuildStarted(UUID rebuildId) {

    public RebuildStarted {
        Objects.requireNonNull(rebuildId, "rebuildId");
    }
}
