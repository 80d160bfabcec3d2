package com.acme.catalog.product.projection;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import com.acme.catalog.contracts.EventType;
import com.acme.catalog.product.projection.ProjectionRepository.Revision;

import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Applies integration events to one generation's copy of accepted state and keeps its public view current.
 * Revision order and dependencies are the caller's business (the inbox parks what is not applicable yet); this
 * class assumes an event it is given may be applied now.
 */
@Component
public class ProjectionWriter {

    private final ProjectionRepository rows;

    ProjectionWriter(ProjectionRepository rows) {
        this.rows = rows;
    }

    /** @return whether revisions of this aggregate type are kept (item, mapping, policy, release) */
    public boolean tracks(String aggregateType) {
        return rows.tracks(aggregateType);
    }

    /** @return the current revision of each existing aggregate among {@code ids}; absent ones are missing */
    public Map<String, Integer> currentRevisions(long generation, String aggregateType, Collection<String> ids) {
        return rows.revisions(generation, aggregateType, ids);
    }

    /** @return the aggregate's current revision, 0 when it does not exist in the generation */
    public int currentRevision(long generation, String aggregateType, String id) {
        return rows.revisions(generation, aggregateType, List.of(id)).getOrDefault(id, 0);
    }

    /** Applies one event of a type the product projects (everything but {@code DecisionRecorded}). */
    public void apply(long generation, IntegrationEvent e) {
        EventType type = e.knownType();
        if (type == null || type == EventType.DecisionRecorded) {
            throw new IllegalArgumentException("event type " + e.type() + " is not projected");
        }
        JsonNode payload = e.payload();
        switch (type) {
            case ItemUpserted -> {
                boolean wasDeleted = rows.writeItem(generation, Revision.of(e, false),
                        payload.get("attributes").toString());
                if (wasDeleted) {
                    rows.refreshPublic(generation, List.of(e.aggregateId()));
                }
            }
            case ItemDeleted -> {
                rows.writeItem(generation, Revision.of(e, true), "{}");
                rows.refreshPublic(generation, List.of(e.aggregateId()));
            }
            case MappingUpserted -> {
                rows.writeMapping(generation, Revision.of(e, false), payload.get("source").stringValue(),
                        payload.get("target").stringValue());
            }
            case PolicyUpserted -> {
                rows.writePolicy(generation, Revision.of(e, false), payload.get("rules").toString());
            }
            case ReleasePublished -> applyRelease(generation, e);
            default -> throw new IllegalArgumentException("event type " + type + " is not projected");
        }
    }

    /** Recomputes a generation's whole public view and search documents from its copy of accepted state. */
    public void rebuildPublicView(long generation) {
        rows.rebuildPublic(generation);
    }

    private void applyRelease(long generation, IntegrationEvent e) {
        JsonNode payload = e.payload();
        Map<String, Integer> named = namedItems(payload.get("items"));
        List<String> before = rows.replaceReleaseItems(generation, e.aggregateId(), named);
        rows.writeRelease(generation, Revision.of(e, false), payload.get("visibility").stringValue(),
                payload.get("items").toString());
        TreeSet<String> touched = new TreeSet<>(before);
        touched.addAll(named.keySet());
        rows.refreshPublic(generation, touched);
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
