package com.acme.catalog.product.projection;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.stereotype.Component;

/**
 * Applies integration events to one generation's copy of accepted state and keeps its public view current.
 * Revision order and dependencies are the caller's business (the inbox parks what is not applicable yet); this
 * class assumes an event it is given may be applied now. Events are collected in a {@link ProjectionBatch} and
 * written together by {@link #flush}: a batch of N events costs one statement per table it touches, not N.
 */
@Component
public class ProjectionWriter {

    private final ProjectionRepository rows;

    ProjectionWriter(ProjectionRepository rows) {
        this.rows = rows;
    }

    /** @return whether revisions of this aggregate type are kept (item, mapping, policy, release) */
    public boolean tracks(String aggregateType) {
        return ProjectionRepository.tracks(aggregateType);
    }

    /** @return the current revision of each existing aggregate among {@code ids}; absent ones are missing */
    public Map<String, Integer> currentRevisions(long generation, String aggregateType, Collection<String> ids) {
        return rows.revisions(generation, aggregateType, ids);
    }

    /**
     * The current revisions of aggregates of several tracked types, in one query.
     *
     * @return per type asked for (and every other tracked type, empty), each existing aggregate's revision
     */
    public Map<String, Map<String, Integer>> currentRevisions(long generation,
            Map<String, ? extends Collection<String>> idsByType) {
        return rows.revisions(generation, idsByType);
    }

    /** @return the aggregate's current revision, 0 when it does not exist in the generation */
    public int currentRevision(long generation, String aggregateType, String id) {
        return rows.revisions(generation, aggregateType, List.of(id)).getOrDefault(id, 0);
    }

    /** @return an empty batch of effects on {@code generation}, to fill and {@link #flush} */
    public ProjectionBatch batch(long generation) {
        return new ProjectionBatch(generation);
    }

    /** Applies one event of a type the product projects (everything but {@code DecisionRecorded}) right away. */
    public void apply(long generation, IntegrationEvent e) {
        ProjectionBatch one = batch(generation);
        one.add(e);
        flush(one);
    }

    /**
     * Writes a batch: revision rows, the last state of each aggregate, the last item list of each release, and
     * the public view of every item whose visibility the batch may have changed (deleted, undeleted, or named by a
     * touched release before or after), recomputed once from the written state.
     */
    public void flush(ProjectionBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        long g = batch.generation();
        Set<String> refresh = new LinkedHashSet<>(batch.refreshed());
        refresh.addAll(rows.insertRevisionsAndUpsertItems(g, batch.revisions(), batch.items().values()));
        rows.upsertMappings(g, batch.mappings().values());
        rows.upsertPolicies(g, batch.policies().values());
        rows.upsertReleases(g, batch.releases().values());
        refresh.addAll(rows.replaceReleaseItems(g, batch.releaseItems()));
        rows.refreshPublic(g, refresh);
    }

    /** Recomputes a generation's whole public view and search documents from its copy of accepted state. */
    public void rebuildPublicView(long generation) {
        rows.rebuildPublic(generation);
    }
}
