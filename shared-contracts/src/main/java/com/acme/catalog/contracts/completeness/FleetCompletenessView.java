package com.acme.catalog.contracts.completeness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /v1/projection-completeness} without a stream: the completeness of every stream the product holds, as
 * counts, and a page of the streams that are not {@code CURRENT}.
 *
 * @param streams    how many streams the product holds (a serving generation, a rebuild, a recovery status or a
 *                   learnt epoch)
 * @param byState    streams per state; every state is present, 0 when none is in it (order kept)
 * @param byEpoch    streams per epoch (the key, ascending), the epoch each stream's completeness reports
 * @param notCurrent the streams not {@code CURRENT} after {@code after}, ordered by tenant and catalog, at most
 *                   {@code limit}
 * @param next       the {@code after} of the next page (the last listed {@code tenant/catalog}); absent on the last
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FleetCompletenessView(long streams, Map<String, Long> byState, Map<String, Long> byEpoch,
        List<NotCurrent> notCurrent, String next) {

    public FleetCompletenessView {
        byState = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(byState, "byState")));
        byEpoch = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(byEpoch, "byEpoch")));
        notCurrent = List.copyOf(Objects.requireNonNull(notCurrent, "notCurrent"));
    }

    /** A stream that is not {@code CURRENT}: its state and why, as its own completeness answers them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NotCurrent(String tenant, String catalog, long epoch, String state, String reason) {

        public NotCurrent {
            Objects.requireNonNull(tenant, "tenant");
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(state, "state");
        }
    }
}
