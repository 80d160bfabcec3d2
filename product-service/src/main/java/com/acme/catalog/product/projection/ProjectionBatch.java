package com.acme.catalog.product.projection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.acme.catalog.contracts.EventType;

import tools.jackson.databind.JsonNode;

/**
 * The effects of a run of events on one generation, collected in apply order and written by
 * {@link ProjectionWriter#flush} in one statement (plus one for the public view when it changes): every revision
 * row, and the last state of each item, mapping, policy and release (a later revision in the batch supersedes an
 * earlier one; a deletion is a state too), the last item list of each release, the items whose public view must be
 * recomputed, and the inbox's rows for the run (processed outcomes, held events it consumed). Nothing is written
 * before the flush, so whoever reads the generation's tables in between must not need the batch's effects (the
 * inbox keeps the revisions it applies in memory).
 *
 * <p>The public view is recomputed from the written state for every item the batch may have changed: deleted, or
 * named by a release event; and, since the flush reads nothing back, the caller names the rest with
 * {@link #refreshAlso}: items whose row before the batch was a deletion and that the batch upserts, and the items a
 * release named before the batch.
 */
public final class ProjectionBatch {

    /** One revision row: the revision an event made, its content (the payload) and where it was made. */
    record Revision(AggregateRevision made, String contentJson, boolean deleted, long epoch, long position,
            java.util.UUID eventId) {
    }

    /**
     * The current row of an item, mapping, policy or release. Its own columns (attributes, source, rules, …) are
     * taken from {@code contentJson}, the payload, by the statement that writes it: the payload is serialized once.
     */
    record Current(String id, int revision, long epoch, long position, String contentJson, boolean deleted) {
    }

    /** One inbox row: the terminal outcome of a processed position and its verified chain digest. */
    record Processed(long position, java.util.UUID eventId, String type, String outcome, String chainDigest) {
    }

    private final long generation;
    private final List<Processed> processed = new ArrayList<>();
    private final List<Long> releasedHeld = new ArrayList<>();
    private final List<Revision> revisions = new ArrayList<>();
    private final Map<String, Current> items = new LinkedHashMap<>();
    private final Map<String, Current> mappings = new LinkedHashMap<>();
    private final Map<String, Current> policies = new LinkedHashMap<>();
    private final Map<String, Current> releases = new LinkedHashMap<>();
    private final Map<String, Map<String, Integer>> releaseItems = new LinkedHashMap<>();
    /** Items whose public view may change: deleted, or named by a release before or after one of its events. */
    private final Set<String> refresh = new LinkedHashSet<>();

    ProjectionBatch(long generation) {
        this.generation = generation;
    }

    public long generation() {
        return generation;
    }

    /** @return whether no event was added (inbox rows may still be) */
    public boolean isEmpty() {
        return revisions.isEmpty();
    }

    /** @return whether the flush has nothing to write at all */
    boolean writesNothing() {
        return revisions.isEmpty() && processed.isEmpty() && releasedHeld.isEmpty() && refresh.isEmpty();
    }

    /** Records the terminal outcome ({@code APPLIED} or {@code IGNORED}) of a processed event, in the inbox. */
    public void recordOutcome(IntegrationEvent e, String outcome) {
        processed.add(new Processed(e.position(), e.eventId(), e.type(), outcome, e.chainDigest()));
    }

    /** Deletes the held (PENDING or PARKED) row of a position the run processed. */
    public void releaseHeld(long position) {
        releasedHeld.add(position);
    }

    /** Recomputes the public view of these items too (see the class comment). */
    public void refreshAlso(java.util.Collection<String> itemIds) {
        refresh.addAll(itemIds);
    }

    /** Adds one applicable event of a type the product projects (everything but {@code DecisionRecorded}). */
    public void add(IntegrationEvent e) {
        EventType type = e.knownType();
        if (type == null || type == EventType.DecisionRecorded) {
            throw new IllegalArgumentException("event type " + e.type() + " is not projected");
        }
        boolean deleted = type == EventType.ItemDeleted;
        String content = e.payload().toString();
        revisions.add(new Revision(e.made(), content, deleted, e.epoch(), e.position(), e.eventId()));
        Current current = new Current(e.aggregateId(), e.revision(), e.epoch(), e.position(), content, deleted);
        switch (type) {
            case ItemUpserted -> items.put(e.aggregateId(), current);
            case ItemDeleted -> {
                items.put(e.aggregateId(), current);
                refresh.add(e.aggregateId());
            }
            case MappingUpserted -> mappings.put(e.aggregateId(), current);
            case PolicyUpserted -> policies.put(e.aggregateId(), current);
            case ReleasePublished -> {
                Map<String, Integer> named = namedItems(e.payload().get("items"));
                releases.put(e.aggregateId(), current);
                // the items named before this event are the ones named after the previous one, already in refresh
                releaseItems.put(e.aggregateId(), named);
                refresh.addAll(named.keySet());
            }
            default -> throw new IllegalArgumentException("event type " + type + " is not projected");
        }
    }


    List<Revision> revisions() {
        return revisions;
    }

    Map<String, Current> items() {
        return items;
    }

    Map<String, Current> mappings() {
        return mappings;
    }

    Map<String, Current> policies() {
        return policies;
    }

    Map<String, Current> releases() {
        return releases;
    }

    Map<String, Map<String, Integer>> releaseItems() {
        return releaseItems;
    }

    Set<String> refreshed() {
        return refresh;
    }

    List<Processed> processed() {
        return processed;
    }

    List<Long> releasedHeld() {
        return releasedHeld;
    }

    /** The items a release names; an item listed twice counts once, at the highest revision listed. */
    private static Map<String, Integer> namedItems(JsonNode items) {
        Map<String, Integer> named = new TreeMap<>();
        for (JsonNode ref : items) {
            named.merge(ref.get("itemId").stringValue(), ref.get("revision").intValue(), Math::max);
        }
        return named;
    }
}
