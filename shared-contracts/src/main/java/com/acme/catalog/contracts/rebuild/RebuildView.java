package com.acme.catalog.contracts.rebuild;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/rebuilds/{rebuildId}}: where a rebuild stands.
 *
 * @param phase         the rebuild's phase name ({@code RebuildPhase} of the product)
 * @param target        the position the rebuild catches up to; null (present) until known
 * @param error         why it failed or was aborted; absent otherwise
 * @param phaseMillis   milliseconds by phase name, the running phase's time so far included; absent when the
 *                      rebuild's row has none to tell
 * @param stepMillis    milliseconds by step name; absent with {@code phaseMillis}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RebuildView(UUID rebuildId, String tenant, String catalog, String phase, int attempt, long cursor,
        @JsonInclude(JsonInclude.Include.ALWAYS) Long target, long loadedRows, long appliedEvents, String error,
        Map<String, Long> phaseMillis, Map<String, Long> stepMillis) {

    public RebuildView {
        Objects.requireNonNull(rebuildId, "rebuildId");
        Objects.requireNonNull(phase, "phase");
    }
}
