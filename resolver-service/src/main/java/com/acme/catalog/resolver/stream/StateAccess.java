package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;

/**
 * The reads and writes {@link ChangeApplier} makes for one physical write transaction, under the stream's cursor
 * lock. {@link DirectStateAccess} issues each statement at once; {@link BufferedStateAccess} answers reads from a
 * prefetch plus its own pending writes and sends the writes as a few multi-row statements at the end. Both must
 * leave exactly the same rows.
 */
interface StateAccess {

    /** @return the aggregate's latest revision, or null when it never existed */
    CurrentRevision current(StreamId s, String aggregateType, String id);

    /** True when the item has this revision and it is not a deletion. */
    boolean itemRevisionLive(StreamId s, String itemId, int revision);

    void upsertItem(StreamId s, String id, int revision, String attributesJson, boolean deleted, long epoch,
            long position);

    void upsertMapping(StreamId s, String id, int revision, String source, String target, long epoch, long position);

    void upsertPolicy(StreamId s, String id, int revision, String rulesJson, long epoch, long position);

    void upsertRelease(StreamId s, String id, int revision, String visibility, String itemsJson, long epoch,
            long position);

    void insertRevision(StreamId s, RevisionRow row);

    void insertOutbox(StreamId s, OutboxRow row);

    /** One row of {@code accepted_revision}. */
    record RevisionRow(String aggregateType, String aggregateId, int revision, String contentJson, boolean deleted,
            long epoch, long position, java.util.UUID eventId) {
    }
}
