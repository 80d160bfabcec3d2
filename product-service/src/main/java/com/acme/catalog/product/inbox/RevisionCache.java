package com.acme.catalog.product.inbox;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;

/**
 * The current revisions of the aggregates one apply run looks at, read in one query for all aggregate types and
 * kept current as the run applies events (whose rows the run writes only at its end). Valid only while the run
 * holds the generation's lock: nobody else writes the generation meanwhile.
 */
final class RevisionCache {

    private final ProjectionWriter projection;
    private final long generation;
    private final Map<String, Map<String, Integer>> byType = new HashMap<>();

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
        if (missing.isEmpty()) {
            return;
        }
        Map<String, Map<String, Integer>> found = projection.currentRevisions(generation, missing);
        missing.forEach((type, ids) -> {
            Map<String, Integer> existing = found.getOrDefault(type, Map.of());
            Map<String, Integer> known = byType.computeIfAbsent(type, t -> new HashMap<>());
            for (String id : ids) {
                known.put(id, existing.getOrDefault(id, 0));
            }
        });
    }

    /** @return the aggregate's current revision in the generation, 0 when it does not exist */
    int current(String aggregateType, String id) {
        Map<String, Integer> known = byType.computeIfAbsent(aggregateType, t -> new HashMap<>());
        Integer revision = known.get(id);
        if (revision == null) {
            revision = projection.currentRevision(generation, aggregateType, id);
            known.put(id, revision);
        }
        return revision;
    }

    void applied(AggregateRevision made) {
        byType.computeIfAbsent(made.aggregateType(), t -> new HashMap<>()).put(made.aggregateId(), made.revision());
    }

    private void want(Map<String, Set<String>> missing, String type, String id) {
        if (tracks(type) && !byType.getOrDefault(type, Map.of()).containsKey(id)) {
            missing.computeIfAbsent(type, t -> new LinkedHashSet<>()).add(id);
        }
    }
}
