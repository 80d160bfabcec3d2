package com.acme.catalog.product.projection;

import java.util.Collection;
import java.util.List;
import java.util.Map;

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
        return rows.tracks(aggregateType);
    }



    /**
     * The current state of aggregates of several tracked types, in one query: what a batch needs to know before it
     * writes (see {@link ProjectionBatch#refreshAlso}).
     */
    public CurrentState currentState(long generation, Map<String, ? extends Collection<String>> idsByType) {
        return rows.currentState(generation, idsByType);
    }


    /** @return an empty batch of effects on {@code generation}, to fill and {@link #flush} */
    public ProjectionBatch batch(long generation) {
        return new ProjectionBatch(generation);
    }


    /**
     * Writes a batch: revision rows, the last state of each aggregate, the last item list of each release, the
     * inbox rows, and the public view of every item whose visibility the batch may have changed (deleted,
     * undeleted, or named by a touched release before or after), recomputed once from the written state; one round
     * trip.
     */
    public void flush(ProjectionBatch batch) {
        if (!batch.writesNothing()) {
            rows.write(batch);
        }
    }

    /** Recomputes a generation's whole public view and search documents from its copy of accepted state. */
    public void rebuildPublicView(long generation) {
        rows.rebuildPublic(generation);
    }
}
