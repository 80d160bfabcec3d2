package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;

/** One statement per read or write, issued immediately: the reference behaviour of the write path. */
final class DirectStateAccess implements StateAccess {

    private final AcceptedStateRepository state;
    private final OutboxRepository outbox;

    DirectStateAccess(AcceptedStateRepository state, OutboxRepository outbox) {
        this.state = state;
        this.outbox = outbox;
    }

    @Override
    public CurrentRevision current(StreamId s, String aggregateType, String id) {
        return state.current(s, aggregateType, id).orElse(null);
    }

    @Override
    public boolean itemRevisionLive(StreamId s, String itemId, int revision) {
        return state.itemRevisionLive(s, itemId, revision);
    }

    @Override
    public void upsertItem(StreamId s, String id, int revision, String attributesJson, boolean deleted, long epoch,
            long position) {
        state.upsertItem(s, id, revision, attributesJson, deleted, epoch, position);
    }

    @Override
    public void upsertMapping(StreamId s, String id, int revision, String source, String target, long epoch,
            long position) {
        state.upsertMapping(s, id, revision, source, target, epoch, position);
    }

    @Override
    public void upsertPolicy(StreamId s, String id, int revision, String rulesJson, long epoch, long position) {
        state.upsertPolicy(s, id, revision, rulesJson, epoch, position);
    }

    @Override
    public void upsertRelease(StreamId s, String id, int revision, String visibility, String itemsJson, long epoch,
            long position) {
        state.upsertRelease(s, id, revision, visibility, itemsJson, epoch, position);
    }

    @Override
    public void insertRevision(StreamId s, RevisionRow r) {
        state.insertRevision(s, r.aggregateType(), r.aggregateId(), r.revision(), r.contentJson(), r.deleted(),
                r.epoch(), r.position(), r.eventId());
    }

    @Override
    public void insertOutbox(StreamId s, OutboxRow row) {
        outbox.insert(s, row);
    }
}
