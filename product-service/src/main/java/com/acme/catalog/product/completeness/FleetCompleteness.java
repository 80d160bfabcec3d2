package com.acme.catalog.product.completeness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.completeness.FleetCompletenessView;
import com.acme.catalog.product.completeness.CompletenessService.Completeness;

/**
 * The completeness of every stream the product holds at one moment, counted by state and by epoch, with the streams
 * that are not {@code CURRENT} paged in (tenant, catalog) order. No I/O: {@link CompletenessService#fleet} reads the
 * inputs.
 */
final class FleetCompleteness {

    static final Comparator<StreamId> ORDER = Comparator.comparing(StreamId::tenant)
            .thenComparing(StreamId::catalog);

    private final SortedMap<StreamId, Completeness> streams;

    FleetCompleteness(Map<StreamId, Completeness> streams) {
        TreeMap<StreamId, Completeness> sorted = new TreeMap<>(ORDER);
        sorted.putAll(streams);
        this.streams = Collections.unmodifiableSortedMap(sorted);
    }

    /** @return every stream with its completeness, in (tenant, catalog) order */
    SortedMap<StreamId, Completeness> streams() {
        return streams;
    }

    /** @return streams per state, every state present (0 when none is in it), in the states' order */
    Map<CompletenessState, Long> byState() {
        Map<CompletenessState, Long> out = new EnumMap<>(CompletenessState.class);
        for (CompletenessState s : CompletenessState.values()) {
            out.put(s, 0L);
        }
        streams.values().forEach(c -> out.merge(c.state(), 1L, Long::sum));
        return out;
    }

    /** @return streams per epoch, ascending */
    SortedMap<Long, Long> byEpoch() {
        SortedMap<Long, Long> out = new TreeMap<>();
        streams.values().forEach(c -> out.merge(c.epoch(), 1L, Long::sum));
        return out;
    }

    /**
     * The contract's answer: the counts, and at most {@code limit} streams not CURRENT after {@code after} (null:
     * from the first), with {@code next} when more follow.
     */
    FleetCompletenessView view(StreamId after, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1: " + limit);
        }
        List<FleetCompletenessView.NotCurrent> page = new ArrayList<>();
        String next = null;
        for (Map.Entry<StreamId, Completeness> e : (after == null ? streams : streams.tailMap(after)).entrySet()) {
            Completeness c = e.getValue();
            if (c.state() == CompletenessState.CURRENT || e.getKey().equals(after)) {
                continue;
            }
            if (page.size() == limit) {
                FleetCompletenessView.NotCurrent last = page.get(limit - 1);
                next = last.tenant() + "/" + last.catalog();
                break;
            }
            page.add(new FleetCompletenessView.NotCurrent(e.getKey().tenant(), e.getKey().catalog(), c.epoch(),
                    c.state().name(), c.reason()));
        }
        Map<String, Long> states = new LinkedHashMap<>();
        byState().forEach((s, n) -> states.put(s.name(), n));
        Map<String, Long> epochs = new LinkedHashMap<>();
        byEpoch().forEach((e, n) -> epochs.put(Long.toString(e), n));
        return new FleetCompletenessView(streams.size(), states, epochs, page, next);
    }
}
