package com.acme.catalog.contracts.retention;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code POST /v1/retention/prune} answer. For one named stream: its open epoch's {@code prunedThrough},
 * {@code blockedBy} and {@code epoch}. For several streams: {@code prunedThrough} null (it is per stream, see
 * {@code streams}), each {@code blockedBy} entry names its tenant and catalog, and {@code epoch} is absent.
 */
public record PruneResult(long pruned, Long prunedThrough, List<RetentionBlocker> blockedBy,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long epoch, List<StreamPruned> streams) {

    public PruneResult {
        blockedBy = List.copyOf(blockedBy);
        streams = List.copyOf(streams);
    }

    /** What one prune pass did in one (stream, epoch). */
    public record StreamPruned(String tenant, String catalog, long epoch, long pruned, int batches,
            long prunedThrough) {
    }
}
