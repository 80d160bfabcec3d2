package com.acme.catalog.product.inbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.EventType;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;

import org.springframework.stereotype.Component;

/**
 * Whether a chain-verified event may be applied to a generation now. Revision r of an aggregate applies only on
 * top of revision r-1; every {@code dependsOn} entry of a tracked aggregate type (item, mapping, policy, release)
 * must name a revision the generation has reached. Entries of other aggregate types are not tracked by the
 * product and count as met.
 */
@Component
class Readiness {

    enum Kind { READY, WAIT, IGNORE, STALE }

    /** The verdict, with the first missing revision when it is {@link Kind#WAIT}. */
    record Verdict(Kind kind, AggregateRevision waitFor) {
        static final Verdict READY = new Verdict(Kind.READY, null);
        static final Verdict IGNORE = new Verdict(Kind.IGNORE, null);
        static final Verdict STALE = new Verdict(Kind.STALE, null);
    }

    private final ProjectionWriter projection;

    Readiness(ProjectionWriter projection) {
        this.projection = projection;
    }

    Verdict check(long generation, IntegrationEvent e) {
        if (e.knownType() == null || e.knownType() == EventType.DecisionRecorded) {
            return Verdict.IGNORE;
        }
        int current = projection.currentRevision(generation, e.aggregateType(), e.aggregateId());
        if (current >= e.revision()) {
            return Verdict.STALE;
        }
        if (current < e.revision() - 1) {
            return new Verdict(Kind.WAIT,
                    new AggregateRevision(e.aggregateType(), e.aggregateId(), e.revision() - 1));
        }
        AggregateRevision missing = firstMissingDependency(generation, e);
        return missing == null ? Verdict.READY : new Verdict(Kind.WAIT, missing);
    }

    private AggregateRevision firstMissingDependency(long generation, IntegrationEvent e) {
        Map<String, List<String>> idsByType = new HashMap<>();
        for (AggregateRevision d : e.dependsOn()) {
            if (projection.tracks(d.aggregateType()) && !isSelf(e, d)) {
                idsByType.computeIfAbsent(d.aggregateType(), t -> new ArrayList<>()).add(d.aggregateId());
            }
        }
        Map<String, Map<String, Integer>> reached = new HashMap<>();
        idsByType.forEach((type, ids) -> reached.put(type, projection.currentRevisions(generation, type, ids)));
        for (AggregateRevision d : e.dependsOn()) {
            // a dependency on an earlier revision of the event's own aggregate is met: revision r-1 is current
            if (reached.containsKey(d.aggregateType()) && !isSelf(e, d)
                    && reached.get(d.aggregateType()).getOrDefault(d.aggregateId(), 0) < d.revision()) {
                return d;
            }
        }
        return null;
    }

    private static boolean isSelf(IntegrationEvent e, AggregateRevision d) {
        return d.aggregateType().equals(e.aggregateType()) && d.aggregateId().equals(e.aggregateId());
    }
}
