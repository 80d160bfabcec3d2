package com.acme.catalog.contracts.retention;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One entry of {@code blockedBy} in the retention status and prune answers: what holds retention, and at which
 * position.
 *
 * @param kind    {@code consumer}, {@code lease}, {@code unpublished} or {@code gap}
 * @param id      the consumer, lease or event; null (present) for a gap, or for another token's consumer or lease
 * @param tenant  the stream, named only in a prune answer over several streams; absent otherwise
 * @param catalog as {@code tenant}
 */
public record RetentionBlocker(String kind, String id, long position,
        @JsonInclude(JsonInclude.Include.NON_NULL) String tenant,
        @JsonInclude(JsonInclude.Include.NON_NULL) String catalog) {

    public RetentionBlocker {
        Objects.requireNonNull(kind, "kind");
    }

    public RetentionBlocker(String kind, String id, long position) {
        this(kind, id, position, null, null);
    }

    /** @return this blocker naming its stream */
    public RetentionBlocker in(String tenant, String catalog) {
        return new RetentionBlocker(kind, id, position, tenant, catalog);
    }
}
