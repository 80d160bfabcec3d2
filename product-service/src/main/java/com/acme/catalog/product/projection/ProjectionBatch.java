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
 * The effects of a run of applicable events on one generation, collected in apply order and written by
 * {@link ProjectionWriter#flush} with one statement per table: every revision row, and the last state of each
 * item, mapping, policy and release (a later revision in the batch supersedes an earlier one; a deletion is a
 * state too), the last item list of each release, and the items whose public view must be recomputed. Nothing is
 * written before the flush, so whoever reads the generation's tables in between must not need the batch's
 * effects (the inbox keeps the revisions it applies in memory).
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

    private final long generation;
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

    /** @return whether nothing was added */
    public boolean isEmpty() {
        return revisions.isEmpty();
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

    /** The items a release names; an item listed twice counts once, at the highest revision listed. */
    private static Map<String, Integer> namedItems(JsonNode items) {
        Map<String, Integer> named = new TreeMap<>();
        for (JsonNode ref : items) {
            named.merge(ref.get("itemId").stringValue(), ref.get("revision").intValue(), Math::max);
        }
        return named;
    }
}
