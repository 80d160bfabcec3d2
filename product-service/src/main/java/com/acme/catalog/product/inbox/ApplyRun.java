package com.acme.catalog.product.inbox;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.product.inbox.InboxRepository.HeldRow;
import com.acme.catalog.product.inbox.InboxRepository.HeldSummary;
import com.acme.catalog.product.inbox.InboxRepository.Processed;
import com.acme.catalog.product.inbox.InboxRepository.Waited;
import com.acme.catalog.product.inbox.Readiness.Verdict;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionBatch;
import com.acme.catalog.product.projection.ProjectionWriter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One application of a list of events to one locked generation, inside the caller's transaction: dedupe by
 * position, chain verification strictly in position order, revision and dependency parking, unparking to a
 * fixpoint, and the new cursor, saved with the run's inbox rows. Any exception leaves the transaction to be rolled
 * back.
 *
 * <p>Decisions are taken in position order against the in-memory {@link RevisionCache}; their effects are
 * collected in a {@link ProjectionBatch} and in lists of inbox rows and written at the end of the run, one
 * statement per table, so an in-order batch of N events costs a constant number of statements. The only reads of
 * the database during the run are of held events (which the run writes as it goes) and of revisions of
 * aggregates the run has not touched (which the batch does not change).
 */
final class ApplyRun {

    private static final Logger log = LoggerFactory.getLogger(ApplyRun.class);

    private final InboxRepository inbox;
    private final RevisionCache revisions;
    private final ProjectionWriter projection;
    private final DeliveryParser parser;
    private final GenerationCursor start;
    private final long maxAhead;
    private final long generation;
    private final Map<Long, Outcome> byPosition = new HashMap<>();
    private final List<Processed> processed = new ArrayList<>();
    /**
     * Held rows the run processed (PENDING ones the chain consumed, PARKED ones it unparked); deleted together at
     * the end. A query of held rows during the run may still return them: {@link #released} filters them out.
     */
    private final List<Long> consumedHeld = new ArrayList<>();
    private final Set<Long> released = new HashSet<>();
    private final ProjectionBatch batch;
    /** The aggregates PARKED events wait for, read on first need and kept current; null until then. */
    private Set<Waited> parkedWaits;
    /** Whether the generation held PENDING events when the run started (false: no need to look for them). */
    private boolean pendingBefore = true;
    /** Whether the generation may hold events after the run (false: it held none before and the run held none). */
    private boolean mayHold = true;
    private long chain;
    private String digest;
    private long parked;

    ApplyRun(InboxRepository inbox, ProjectionWriter projection, DeliveryParser parser, GenerationCursor locked,
            long maxAhead) {
        this.inbox = inbox;
        this.revisions = new RevisionCache(projection, locked.generationId());
        this.projection = projection;
        this.parser = parser;
        this.start = locked;
        this.maxAhead = maxAhead;
        this.generation = locked.generationId();
        this.chain = locked.chainPosition();
        this.digest = locked.chainDigest();
        this.batch = projection.batch(locked.generationId());
    }

    ApplyResult run(List<IntegrationEvent> events) {
        Outcome[] outcomes = new Outcome[events.size()];
        TreeMap<Long, IntegrationEvent> arrivals = new TreeMap<>();
        Map<Long, Integer> firstIndex = new HashMap<>();
        Map<Long, IntegrationEvent> belowChain = new HashMap<>();
        long highest = 0;
        for (int i = 0; i < events.size(); i++) {
            IntegrationEvent e = events.get(i);
            highest = Math.max(highest, e.position());
            if (e.position() > chain + maxAhead) {
                throw new ApiException(ProblemCode.POSITION_AHEAD, "position %d is more than %d ahead of the "
                        + "verified position %d of %s epoch %d".formatted(e.position(), maxAhead, chain,
                        start.stream(), start.epoch()));
            }
            IntegrationEvent first = e.position() <= chain ? belowChain.putIfAbsent(e.position(), e)
                    : arrivals.putIfAbsent(e.position(), e);
            if (first != null || e.position() <= chain) {
                outcomes[i] = Outcome.DUPLICATE;
                requireSameDigest(first == null ? e : first, e);
            } else {
                firstIndex.put(e.position(), i);
            }
        }
        new RedeliveryCheck(inbox, start).verify(belowChain);
        if (!arrivals.isEmpty()) {
            HeldSummary before = holdsNothing(start) ? new HeldSummary(0, 0, 0) : inbox.heldSummary(generation);
            parked = before.parked();
            pendingBefore = before.total() > before.parked();
            mayHold = before.total() > 0;
        }
        if (pendingBefore && !arrivals.isEmpty()) {
            Long[] positions = arrivals.keySet().toArray(Long[]::new);
            Map<Long, String> alreadyHeld = inbox.pendingDigests(generation, positions);
            alreadyHeld.forEach((position, heldDigest) -> {
                requireSameDigest(heldDigest, arrivals.remove(position));
                outcomes[firstIndex.get(position)] = Outcome.DUPLICATE;
            });
        }
        revisions.prefetch(arrivals.values());
        advanceChain(arrivals);
        inbox.holdPending(generation, arrivals.values());
        mayHold |= !arrivals.isEmpty();
        for (IntegrationEvent early : arrivals.values()) {
            byPosition.put(early.position(), Outcome.PARKED);
        }
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                outcomes[i] = byPosition.get(events.get(i).position());
            }
        }
        projection.flush(batch);
        inbox.releaseAll(generation, consumedHeld);
        HeldSummary held = mayHold ? inbox.heldSummary(generation) : new HeldSummary(0, 0, 0);
        long applied = held.parked() == 0 ? chain : held.firstParked() - 1;
        GenerationCursor after = start.advancedTo(chain, digest, applied, highest);
        inbox.recordAndSaveCursor(after, processed);
        return new ApplyResult(after, Arrays.asList(outcomes), held.total());
    }

    /**
     * Whether the locked cursor alone proves the generation holds no event, which spares the in-order delivery a
     * query. Held rows are written only by a run, in the transaction that saves its cursor: a PARKED event sits at or
     * below the chain and keeps the applied position below it ({@code applied = firstParked - 1}); a PENDING one sits
     * above the chain and at or below the highest position seen, which never decreases. So applied == chain and
     * highest seen <= chain leave room for neither. When in doubt (a discarded PENDING event leaves the highest seen
     * above the chain) the caller asks the database.
     */
    static boolean holdsNothing(GenerationCursor c) {
        return c.appliedPosition() == c.chainPosition() && c.highestSeenPosition() <= c.chainPosition();
    }

    /** Pulls events in position order while the next position is at hand, verifying each link of the chain. */
    private void advanceChain(TreeMap<Long, IntegrationEvent> arrivals) {
        PendingRun pending = new PendingRun();
        while (true) {
            long p = chain + 1;
            IntegrationEvent e = arrivals.remove(p);
            boolean held = false;
            if (e == null) {
                e = pending.at(p);
                if (e == null) {
                    return;
                }
                held = true;
            }
            String expected = ChainDigest.next(digest, e.wire());
            if (!expected.equals(e.chainDigest())) {
                throw new ChainBrokenException(generation, start.stream(), start.epoch(), p, e.chainDigest(), held,
                        "chain digest does not follow from the verified digest at position " + (p - 1)
                                + (held ? " (the event was held from an earlier delivery)" : ""));
            }
            chain = p;
            digest = expected;
            byPosition.put(p, process(e, held));
        }
    }

    /** Decides a chain-verified event: apply, ignore or park it. */
    private Outcome process(IntegrationEvent e, boolean held) {
        Verdict v = Readiness.check(revisions, e);
        switch (v.kind()) {
            case WAIT -> {
                mayHold = true;
                parkedOn(v.waitFor());
                if (held) {
                    inbox.park(generation, e.position(), v.waitFor());
                } else {
                    inbox.holdParked(generation, e, v.waitFor());
                }
                parked++;
                return Outcome.PARKED;
            }
            case READY -> {
                applyNow(e);
                finish(e, Outcome.APPLIED, held);
                unparkAfter(e.made());
                return Outcome.APPLIED;
            }
            default -> {
                if (v.kind() == Readiness.Kind.STALE) {
                    log.warn("{} epoch {} position {}: {} is not newer than the copy's revision; ignored",
                            start.stream(), start.epoch(), e.position(), e.made());
                }
                finish(e, Outcome.IGNORED, held);
                return Outcome.IGNORED;
            }
        }
    }

    /** Applies every parked event that {@code applied} made applicable, and what those made applicable, etc. */
    private void unparkAfter(AggregateRevision applied) {
        Deque<AggregateRevision> work = new ArrayDeque<>();
        work.add(applied);
        while (!work.isEmpty() && parked > 0) {
            AggregateRevision made = work.poll();
            if (!parkedWaits().contains(Waited.of(made))) {
                continue;
            }
            for (HeldRow row : inbox.waitingOn(generation, made)) {
                if (released.contains(row.position())) {
                    continue;
                }
                IntegrationEvent e = parser.parseWire(row.wire(), row.chainDigest());
                Verdict v = Readiness.check(revisions, e);
                if (v.kind() == Readiness.Kind.WAIT) {
                    parkedOn(v.waitFor());
                    inbox.park(generation, row.position(), v.waitFor());
                    continue;
                }
                parked--;
                Outcome o = v.kind() == Readiness.Kind.READY ? Outcome.APPLIED : Outcome.IGNORED;
                if (o == Outcome.APPLIED) {
                    applyNow(e);
                    work.add(e.made());
                }
                finish(e, o, true);
                byPosition.put(e.position(), o);
            }
        }
    }

    private Set<Waited> parkedWaits() {
        if (parkedWaits == null) {
            parkedWaits = inbox.parkedWaits(generation);
        }
        return parkedWaits;
    }

    /** Notes that an event now waits for {@code w}, so applying {@code w} looks for it. */
    private void parkedOn(AggregateRevision w) {
        if (parkedWaits != null) {
            parkedWaits.add(Waited.of(w));
        }
    }

    /** Records a terminal outcome; {@code held} when the event has a held row, which must go. */
    private void finish(IntegrationEvent e, Outcome outcome, boolean held) {
        if (held) {
            consumedHeld.add(e.position());
            released.add(e.position());
        }
        processed.add(new Processed(e, outcome));
    }

    private void applyNow(IntegrationEvent e) {
        batch.add(e);
        revisions.applied(e.made());
    }

    /**
     * The PENDING events from the verified position on, read a page at a time and only while the chain keeps
     * advancing into them: a gap with a long backlog behind it costs one query, not a read of the backlog.
     */
    private final class PendingRun {
        private static final int PAGE = 500;
        private final TreeMap<Long, IntegrationEvent> page = new TreeMap<>();
        private long readThrough = -1;

        IntegrationEvent at(long position) {
            if (!pendingBefore) {
                return null;
            }
            if (position > readThrough) {
                page.clear();
                List<HeldRow> rows = inbox.pendingFrom(generation, position, PAGE);
                for (HeldRow r : rows) {
                    page.put(r.position(), parser.parseWire(r.wire(), r.chainDigest()));
                }
                revisions.prefetch(page.values());
                readThrough = rows.size() < PAGE ? Long.MAX_VALUE : rows.get(rows.size() - 1).position();
            }
            return page.remove(position);
        }
    }

    private void requireSameDigest(IntegrationEvent first, IntegrationEvent again) {
        if (!first.chainDigest().equals(again.chainDigest())) {
            throw new ChainBrokenException(generation, start.stream(), start.epoch(), again.position(),
                    again.chainDigest(), false, "delivered twice with different chain digests");
        }
    }

    private void requireSameDigest(String heldDigest, IntegrationEvent again) {
        if (!heldDigest.equals(again.chainDigest())) {
            throw new ChainBrokenException(generation, start.stream(), start.epoch(), again.position(),
                    again.chainDigest(), false, "delivered with a chain digest other than the held copy's");
        }
    }
}
