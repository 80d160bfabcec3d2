package com.acme.catalog.product.inbox;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.CurrentState;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;

/**
 * The current revisions of the aggregates one apply run looks at, read in one query for all aggregate types and
 * kept current as the run applies events (whose rows the run writes only at its end). Valid only while the run
 * holds the generation's lock: nobody else writes the generation meanwhile. It also keeps what the run's batch must
 * know of the state before the run (which items were deletions, which items each release named), read by the same
 * query.
 */
final class RevisionCache {

    private final ProjectionWriter projection;
    private final long generation;
    private final Map<String, Map<String, Integer>> byType = new HashMap<>();
    private final Set<String> deletedBefore = new HashSet<>();
    private final Map<String, List<String>> namedBefore = new HashMap<>();

    RevisionCache(ProjectionWriter projection, long generation) {
        this.projection = projection;
        this.generation = generation;
    }

    boolean tracks(String aggregateType) {
        return projection.tracks(aggregateType);
    }

    /** Reads, in one query, the revisions of every tracked aggregate the events make or depend on. */
    void prefetch(Collection<IntegrationEvent> events) {
        Map<String, Set<String>> missing = new HashMap<>();
        for (IntegrationEvent e : events) {
            if (e.knownType() != null) {
                want(missing, e.aggregateType(), e.aggregateId());
            }
            for (AggregateRevision d : e.dependsOn()) {
                want(missing, d.aggregateType(), d.aggregateId());
            }
        }
        fetch(missing);
    }

    /** @return the aggregate's current revision in the generation, 0 when it does not exist */
    int current(String aggregateType, String id) {
        Integer revision = byType.getOrDefault(aggregateType, Map.of()).get(id);
        if (revision == null) {
            Map<String, Set<String>> one = new HashMap<>();
            want(one, aggregateType, id);
            fetch(one);
            revision = byType.getOrDefault(aggregateType, Map.of()).getOrDefault(id, 0);
        }
        return revision;
    }

    void applied(AggregateRevision made) {
        byType.computeIfAbsent(made.aggregateType(), t -> new HashMap<>()).put(made.aggregateId(), made.revision());
    }

    /**
     * The items whose public view an applied event may change beyond what the event itself names: an item whose
     * row before the run was a deletion (an upsert may bring it back), the items a release named before the run.
     */
    Collection<String> refreshedBefore(IntegrationEvent applied) {
        if ("item".equals(applied.aggregateType())) {
            return deletedBefore.contains(applied.aggregateId()) ? List.of(applied.aggregateId()) : List.of();
        }
        if ("release".equals(applied.aggregateType())) {
            return namedBefore.getOrDefault(applied.aggregateId(), List.of());
        }
        return List.of();
    }

    private void fetch(Map<String, Set<String>> missing) {
        if (missing.isEmpty()) {
            return;
        }
        CurrentState found = projection.currentState(generation, missing);
        deletedBefore.addAll(found.deletedItems());
        namedBefore.putAll(found.releaseItems());
        missing.forEach((type, ids) -> {
            Map<String, Integer> existing = found.revisions().getOrDefault(type, Map.of());
            Map<String, Integer> known = byType.computeIfAbsent(type, t -> new HashMap<>());
            for (String id : ids) {
                known.put(id, existing.getOrDefault(id, 0));
            }
        });
    }

    private void want(Map<String, Set<String>> missing, String type, String id) {
        if (tracks(type) && !byType.getOrDefault(type, Map.of()).containsKey(id)) {
            missing.computeIfAbsent(type, t -> new LinkedHashSet<>()).add(id);
        }
    }
}
