package com.acme.catalog.resolver.retention;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.retention.PruneResult;
import com.acme.catalog.contracts.retention.RetentionBlocker;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.resolver.retention.OutboxPruner.PruneOutcome;
import com.acme.catalog.resolver.retention.RetentionStatus.ConsumerView;
import com.acme.catalog.resolver.retention.RetentionStatus.LeaseView;

/** The answers of the retention status and prune endpoints, as the contract's records. */
final class RetentionJson {

    private RetentionJson() {
    }

    static RetentionView status(RetentionStatus st) {
        List<RetentionView.Consumer> consumers = new ArrayList<>(st.consumers().size());
        for (ConsumerView c : st.consumers()) {
            consumers.add(new RetentionView.Consumer(c.consumerId(), c.epoch(), c.durablePosition(), c.lagEvents(),
                    c.deliveryUrl(), c.registeredAt(), c.progressAt()));
        }
        List<RetentionView.Lease> leases = new ArrayList<>(st.leases().size());
        for (LeaseView l : st.leases()) {
            leases.add(new RetentionView.Lease(l.leaseId(), l.owner(), l.pin(), l.createdAt(), l.expiresAt()));
        }
        return new RetentionView(st.epoch(), st.cursor(), st.prunedThrough(), st.retainedEvents(),
                blockers(st.blockedBy()), consumers, leases, st.stream().tenant(), st.stream().catalog(),
                st.minAge().toString(), st.ripeThrough(), st.pruneableThrough(), st.observedAt());
    }

    static List<RetentionBlocker> blockers(List<Blocker> blockers) {
        List<RetentionBlocker> out = new ArrayList<>(blockers.size());
        for (Blocker b : blockers) {
            out.add(new RetentionBlocker(b.kind().wire(), b.id(), b.position()));
        }
        return out;
    }

    /** The answer for one named stream: its open epoch after pruning. */
    static PruneResult pruneResult(List<PruneOutcome> outcomes, RetentionStatus after) {
        return new PruneResult(pruned(outcomes), after.prunedThrough(), blockers(after.blockedBy()), after.epoch(),
                outcomes(outcomes));
    }

    /**
     * The answer for several streams: {@code prunedThrough} is null (it is per stream, see {@code streams}) and
     * each {@code blockedBy} entry also names its tenant and catalog.
     */
    static PruneResult pruneSummary(List<PruneOutcome> outcomes, Function<StreamId, RetentionStatus> status) {
        Set<StreamId> streams = new LinkedHashSet<>();
        outcomes.forEach(o -> streams.add(o.stream()));
        List<RetentionBlocker> blockedBy = new ArrayList<>();
        for (StreamId s : streams) {
            RetentionStatus st = status.apply(s);
            if (st == null) {
                continue;
            }
            for (RetentionBlocker b : blockers(st.blockedBy())) {
                blockedBy.add(b.in(s.tenant(), s.catalog()));
            }
        }
        return new PruneResult(pruned(outcomes), null, blockedBy, null, outcomes(outcomes));
    }

    private static long pruned(List<PruneOutcome> outcomes) {
        return outcomes.stream().mapToLong(PruneOutcome::pruned).sum();
    }

    private static List<PruneResult.StreamPruned> outcomes(List<PruneOutcome> outcomes) {
        List<PruneResult.StreamPruned> out = new ArrayList<>(outcomes.size());
        for (PruneOutcome o : outcomes) {
            out.add(new PruneResult.StreamPruned(o.stream().tenant(), o.stream().catalog(), o.epoch(), o.pruned(),
                    o.batches(), o.prunedThrough()));
        }
        return out;
    }
}
