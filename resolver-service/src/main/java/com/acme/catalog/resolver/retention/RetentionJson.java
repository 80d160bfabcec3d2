package com.acme.catalog.resolver.retention;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.OutboxPruner.PruneOutcome;
import com.acme.catalog.resolver.retention.RetentionStatus.ConsumerView;
import com.acme.catalog.resolver.retention.RetentionStatus.LeaseView;

/** The JSON shapes of the retention endpoints (CONTRACT names first, additions after). */
final class RetentionJson {

    private RetentionJson() {
    }

    static Map<String, Object> status(RetentionStatus st) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("epoch", st.epoch());
        out.put("cursor", st.cursor());
        out.put("prunedThrough", st.prunedThrough());
        out.put("retainedEvents", st.retainedEvents());
        out.put("blockedBy", blockers(st.blockedBy()));
        List<Map<String, Object>> consumers = new ArrayList<>();
        for (ConsumerView c : st.consumers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("consumerId", c.consumerId());
            m.put("epoch", c.epoch());
            m.put("durablePosition", c.durablePosition());
            m.put("lagEvents", c.lagEvents());
            m.put("deliveryUrl", c.deliveryUrl());
            m.put("registeredAt", text(c.registeredAt()));
            m.put("progressAt", text(c.progressAt()));
            consumers.add(m);
        }
        out.put("consumers", consumers);
        List<Map<String, Object>> leases = new ArrayList<>();
        for (LeaseView l : st.leases()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("leaseId", l.leaseId().toString());
            m.put("owner", l.owner());
            m.put("pin", l.pin());
            m.put("createdAt", text(l.createdAt()));
            m.put("expiresAt", text(l.expiresAt()));
            leases.add(m);
        }
        out.put("leases", leases);
        out.put("tenant", st.stream().tenant());
        out.put("catalog", st.stream().catalog());
        out.put("minAge", st.minAge().toString());
        out.put("ripeThrough", st.ripeThrough());
        out.put("pruneableThrough", st.pruneableThrough());
        out.put("observedAt", text(st.observedAt()));
        return out;
    }

    static List<Map<String, Object>> blockers(List<Blocker> blockers) {
        List<Map<String, Object>> out = new ArrayList<>(blockers.size());
        for (Blocker b : blockers) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", b.kind().wire());
            m.put("id", b.id());
            m.put("position", b.position());
            out.add(m);
        }
        return out;
    }

    /** The answer for one named stream: its open epoch after pruning. */
    static Map<String, Object> pruneResult(List<PruneOutcome> outcomes, RetentionStatus after) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("pruned", outcomes.stream().mapToLong(PruneOutcome::pruned).sum());
        out.put("prunedThrough", after.prunedThrough());
        out.put("blockedBy", blockers(after.blockedBy()));
        out.put("epoch", after.epoch());
        out.put("streams", outcomes(outcomes));
        return out;
    }

    /**
     * The answer for several streams: {@code prunedThrough} is null (it is per stream, see {@code streams}) and
     * each {@code blockedBy} entry also names its tenant and catalog.
     */
    static Map<String, Object> pruneSummary(List<PruneOutcome> outcomes, Function<StreamId, RetentionStatus> status) {
        Set<StreamId> streams = new LinkedHashSet<>();
        outcomes.forEach(o -> streams.add(o.stream()));
        List<Map<String, Object>> blockedBy = new ArrayList<>();
        for (StreamId s : streams) {
            RetentionStatus st = status.apply(s);
            if (st == null) {
                continue;
            }
            for (Map<String, Object> b : blockers(st.blockedBy())) {
                b.put("tenant", s.tenant());
                b.put("catalog", s.catalog());
                blockedBy.add(b);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("pruned", outcomes.stream().mapToLong(PruneOutcome::pruned).sum());
        out.put("prunedThrough", null);
        out.put("blockedBy", blockedBy);
        out.put("streams", outcomes(outcomes));
        return out;
    }

    private static List<Map<String, Object>> outcomes(List<PruneOutcome> outcomes) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (PruneOutcome o : outcomes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("tenant", o.stream().tenant());
            m.put("catalog", o.stream().catalog());
            m.put("epoch", o.epoch());
            m.put("pruned", o.pruned());
            m.put("batches", o.batches());
            m.put("prunedThrough", o.prunedThrough());
            out.add(m);
        }
        return out;
    }

    private static String text(Instant i) {
        return i == null ? null : i.toString();
    }
}
