package com.acme.catalog.product.inbox;

import java.util.List;

import com.acme.catalog.contracts.EventType;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.IntegrationEvent;

/**
 * Whether a chain-verified event may be applied to a generation now. Revision r of an aggregate applies only on
 * top of revision r-1; every {@code dependsOn} entry of a tracked aggregate type (item, mapping, policy, release)
 * must name a revision the generation has reached. Entries of other aggregate types are not tracked by the
 * product and count as met.
 */
final class Readiness {

    enum Kind { READY, WAIT, IGNORE, STALE }

    /** The verdict, with the first missing revision when it is {@link Kind#WAIT}. */
    record Verdict(Kind kind, AggregateRevision waitFor) {
        static final Verdict READY = new Verdict(Kind.READY, null);
        static final Verdict IGNORE = new Verdict(Kind.IGNORE, null);
        static final Verdict STALE = new Verdict(Kind.STALE, null);
    }

    private Readiness() {
    }

    static Verdict check(RevisionCache revisions, IntegrationEvent e) {
        if (e.knownType() == null || e.knownType() == EventType.DecisionRecorded) {
            return Verdict.IGNORE;
        }
        revisions.prefetch(List.of(e));
        int current = revisions.current(e.aggregateType(), e.aggregateId());
        if (current >= e.revision()) {
            return Verdict.STALE;
        }
        if (current < e.revision() - 1) {
            return new Verdict(Kind.WAIT,
                    new AggregateRevision(e.aggregateType(), e.aggregateId(), e.revision() - 1));
        }
        for (AggregateRevision d : e.dependsOn()) {
            // a dependency on an earlier revision of the event's own aggregate is met: revision r-1 is current
            boolean self = d.aggregateType().equals(e.aggregateType()) && d.aggregateId().equals(e.aggregateId());
            if (!self && revisions.tracks(d.aggregateType())
                    && revisions.current(d.aggregateType(), d.aggregateId()) < d.revision()) {
                return new Verdict(Kind.WAIT, d);
            }
        }
        return Verdict.READY;
    }
}
