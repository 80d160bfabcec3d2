package com.acme.catalog.product.inbox;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;

/**
 * The current revisions of the aggregates one apply run looks at, read in one query per aggregate type and kept
 * current as the run applies events. Valid only while the run holds the generation's lock: nobody else writes the
 * generation meanwhile.
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

    /** Reads, in one query per type, the revisions of every tracked aggregate the events make or depend on. */
    void prefetch(Collection<IntegrationEvent> events) {
        Map<String, List<String>> missing = new HashMap<>();
        for (IntegrationEvent e : events) {
            if (e.knownType() != null) {
                want(missing, e.aggregateType(), e.aggregateId());
            }
            for (AggregateRevision d : e.dependsOn()) {
                want(missing, d.aggregateType(), d.aggregateId());
            }
        }
        missing.forEach((type, ids) -> {
            Map<String, Integer> found = projection.currentRevisions(generation, type, ids);
            Map<String, Integer> known = byType.computeIfAbsent(type, t -> new HashMap<>());
            for (String id : ids) {
                known.put(id, found.getOrDefault(id, 0));
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

    private void want(Map<String, List<String>> missing, String type, String id) {
        if (tracks(type) && !byType.getOrDefault(type, Map.of()).containsKey(id)) {
            List<String> ids = missing.computeIfAbsent(type, t -> new ArrayList<>());
            if (!ids.contains(id)) {
                ids.add(id);
            }
        }
    }
}
