package com.acme.catalog.resolver.stream;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.BatchWriteRepository.ItemRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.MappingRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.PolicyRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.ReleaseRow;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;

/**
 * Answers reads from what was committed before the lock (prefetched in one query, see {@link #reads}) overlaid
 * with this transaction's own pending writes, and sends the writes in {@link #flush} as one statement. Because
 * the cursor lock serializes every writer of the stream, nothing else can change the prefetched rows.
 * Current rows keep only the last write per aggregate, which is what the one-statement-per-write path leaves.
 */
final class BufferedStateAccess implements StateAccess {

    private final BatchWriteRepository batch;
    private final StreamId stream;
    /** aggregate type -> id -> revision as committed before this transaction (absent: never existed). */
    private final Map<String, Map<String, CurrentRevision>> committed;
    /** aggregate type + id -> revision after this transaction's writes so far. */
    private final Map<String, CurrentRevision> pending = new HashMap<>();
    private final Set<String> committedLiveItemRevisions;
    /** item revisions written by this transaction: key -> deleted. */
    private final Map<String, Boolean> pendingItemRevisions = new HashMap<>();

    private final Map<String, ItemRow> items = new LinkedHashMap<>();
    private final Map<String, MappingRow> mappings = new LinkedHashMap<>();
    private final Map<String, PolicyRow> policies = new LinkedHashMap<>();
    private final Map<String, ReleaseRow> releases = new LinkedHashMap<>();
    private final List<RevisionRow> revisions = new ArrayList<>();
    private final List<OutboxRow> outbox = new ArrayList<>();

    BufferedStateAccess(BatchWriteRepository batch, StreamId stream, Reads reads,
            BatchWriteRepository.Prefetched found) {
        this.batch = batch;
        this.stream = stream;
        this.committed = new HashMap<>();
        for (String type : reads.idsByType().keySet()) {
            committed.put(type, found.current().getOrDefault(type, Map.of()));
        }
        this.committedLiveItemRevisions = found.liveItemRevisions();
    }

    /** Every aggregate the transactions touch and every item revision their releases name. */
    static Reads reads(List<List<Change>> transactions) {
        Map<String, Set<String>> idsByType = new LinkedHashMap<>();
        Set<Change.ItemRef> refs = new LinkedHashSet<>();
        for (List<Change> changes : transactions) {
            for (Change c : changes) {
                if (c instanceof Change.RecordDecision) {
                    continue; // reads nothing
                }
                idsByType.computeIfAbsent(c.aggregateType(), t -> new LinkedHashSet<>()).add(c.aggregateId());
                if (c instanceof Change.PutRelease release) {
                    refs.addAll(release.items());
                }
            }
        }
        return new Reads(idsByType, List.copyOf(refs));
    }

    @Override
    public CurrentRevision current(StreamId s, String aggregateType, String id) {
        requireStream(s);
        CurrentRevision mine = pending.get(aggregateType + '\u0000' + id);
        if (mine != null) {
            return mine;
        }
        Map<String, CurrentRevision> ofType = committed.get(aggregateType);
        if (ofType == null) {
            throw new IllegalStateException(aggregateType + " " + id + " was not prefetched");
        }
        return ofType.get(id);
    }

    @Override
    public boolean itemRevisionLive(StreamId s, String itemId, int revision) {
        requireStream(s);
        String key = BatchWriteRepository.key(itemId, revision);
        Boolean deleted = pendingItemRevisions.get(key);
        if (deleted != null) {
            return !deleted;
        }
        return committedLiveItemRevisions.contains(key);
    }

    @Override
    public void upsertItem(StreamId s, String id, int revision, String attributesJson, boolean deleted, long epoch,
            long position) {
        requireStream(s);
        pending.put("item\u0000" + id, new CurrentRevision(revision, deleted));
        pendingItemRevisions.put(BatchWriteRepository.key(id, revision), deleted);
        items.put(id, new ItemRow(id, revision, attributesJson, deleted, epoch, position));
    }

    @Override
    public void upsertMapping(StreamId s, String id, int revision, String source, String target, long epoch,
            long position) {
        requireStream(s);
        pending.put("mapping\u0000" + id, new CurrentRevision(revision, false));
        mappings.put(id, new MappingRow(id, revision, source, target, epoch, position));
    }

    @Override
    public void upsertPolicy(StreamId s, String id, int revision, String rulesJson, long epoch, long position) {
        requireStream(s);
        pending.put("policy\u0000" + id, new CurrentRevision(revision, false));
        policies.put(id, new PolicyRow(id, revision, rulesJson, epoch, position));
    }

    @Override
    public void upsertRelease(StreamId s, String id, int revision, String visibility, String itemsJson, long epoch,
            long position) {
        requireStream(s);
        pending.put("release\u0000" + id, new CurrentRevision(revision, false));
        releases.put(id, new ReleaseRow(id, revision, visibility, itemsJson, epoch, position));
    }

    @Override
    public void insertRevision(StreamId s, RevisionRow row) {
        requireStream(s);
        revisions.add(row);
    }

    @Override
    public void insertOutbox(StreamId s, OutboxRow row) {
        requireStream(s);
        outbox.add(row);
    }

    /** Sends every pending write (current rows, revisions, outbox rows) and the cursor advance in one statement. */
    void flush(Cursor from, Cursor to) {
        batch.writeAll(rows(), from, to);
    }

    /** {@link #flush(Cursor, Cursor)} storing the idempotency keys of the writes in the same round trip. */
    void flush(Cursor from, Cursor to, List<WriteKeys.Remembered> keys) {
        batch.writeAll(rows(), from, to, keys);
    }

    /** Everything pending, for a write sent now ({@link #flush}) or later (see {@link ChunkWriter#prepare}). */
    BatchWriteRepository.Rows rows() {
        return new BatchWriteRepository.Rows(stream, List.copyOf(items.values()), List.copyOf(mappings.values()),
                List.copyOf(policies.values()), List.copyOf(releases.values()), revisions, outbox);
    }

    /** What a batch of transactions needs read before it is applied. */
    record Reads(Map<String, Set<String>> idsByType, List<Change.ItemRef> refs) {
    }

    private void requireStream(StreamId s) {
        if (!stream.equals(s)) {
            throw new IllegalArgumentException("buffer of " + stream + " used for " + s);
        }
    }
}
