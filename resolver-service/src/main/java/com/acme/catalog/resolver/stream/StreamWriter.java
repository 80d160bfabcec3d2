package com.acme.catalog.resolver.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.EventAppender.Dependency;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The write protocol: lock the stream's cursor row, take gapless positions, write current state, revisions and
 * one outbox row per event, advance the cursor, commit once. A rollback consumes no position.
 */
@Service
public class StreamWriter {

    private final TransactionTemplate tx;
    private final CursorRepository cursors;
    private final AcceptedStateRepository state;
    private final OutboxRepository outbox;
    private final ObjectMapper json;
    private final StreamMetrics metrics;

    public StreamWriter(TransactionTemplate tx, CursorRepository cursors, AcceptedStateRepository state,
            OutboxRepository outbox, ObjectMapper json, StreamMetrics metrics) {
        this.tx = tx;
        this.cursors = cursors;
        this.state = state;
        this.outbox = outbox;
        this.json = json;
        this.metrics = metrics;
    }

    /** One logical transaction in its own physical commit. */
    public WriteResult write(StreamId stream, List<Change> changes) {
        return writeAll(stream, List.of(changes)).get(0);
    }

    /**
     * Several logical transactions, each with its own transaction id, in one physical commit: all are committed
     * or none is.
     */
    public List<WriteResult> writeAll(StreamId stream, List<List<Change>> transactions) {
        long started = System.nanoTime();
        try {
            List<WriteResult> results = tx.execute(status -> appendLocked(stream, transactions));
            metrics.committed(stream, results, System.nanoTime() - started);
            return results;
        } catch (RuntimeException e) {
            metrics.failed(stream, System.nanoTime() - started);
            throw e;
        }
    }

    /**
     * The body of {@link #writeAll} for a caller that owns the surrounding transaction (bootstrap chunks, tests
     * that roll back after the lock). The cursor stays locked until that transaction ends.
     */
    public List<WriteResult> appendLocked(StreamId stream, List<List<Change>> transactions) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("appendLocked needs an open transaction");
        }
        Cursor locked = cursors.lockCursor(stream);
        EventAppender appender = new EventAppender(json, locked, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        List<WriteResult> results = new ArrayList<>(transactions.size());
        for (List<Change> changes : transactions) {
            UUID transactionId = UuidV7.next();
            long first = appender.nextPosition();
            int revision = 0;
            for (int i = 0; i < changes.size(); i++) {
                revision = apply(stream, appender, changes.get(i), transactionId, i, changes.size());
            }
            results.add(new WriteResult(locked.epoch(), first, appender.nextPosition() - 1, transactionId, revision));
        }
        cursors.advance(locked, appender.cursor());
        return results;
    }

    private int apply(StreamId s, EventAppender a, Change change, UUID txId, int ordinal, int count) {
        CurrentRevision current = state.current(s, change.aggregateType(), change.aggregateId()).orElse(null);
        int currentRevision = current == null ? 0 : current.revision();
        int revision = currentRevision + 1;
        List<Dependency> deps = new ArrayList<>();
        if (currentRevision > 0) {
            deps.add(new Dependency(change.aggregateType(), change.aggregateId(), currentRevision));
        }
        long position = a.nextPosition();
        UUID eventId = EventAppender.newEventId();
        String type;
        ObjectNode payload = json.createObjectNode();
        boolean deleted = false;
        if (change instanceof Change.UpsertItem c) {
            checkExpected(c.expectedRevision(), currentRevision, change);
            type = "ItemUpserted";
            payload.set("attributes", c.attributes());
            state.upsertItem(s, c.itemId(), revision, c.attributes().toString(), false, a.epoch(), position);
        } else if (change instanceof Change.DeleteItem c) {
            if (current == null || current.deleted()) {
                throw new ApiException(ProblemCode.NOT_FOUND, "item " + c.itemId() + " does not exist in " + s);
            }
            checkExpected(c.expectedRevision(), currentRevision, change);
            type = "ItemDeleted";
            deleted = true;
            state.upsertItem(s, c.itemId(), revision, "{}", true, a.epoch(), position);
        } else if (change instanceof Change.UpsertMapping c) {
            type = "MappingUpserted";
            payload.put("source", c.source()).put("target", c.target());
            state.upsertMapping(s, c.mappingId(), revision, c.source(), c.target(), a.epoch(), position);
        } else if (change instanceof Change.UpsertPolicy c) {
            type = "PolicyUpserted";
            payload.set("rules", c.rules());
            state.upsertPolicy(s, c.policyId(), revision, c.rules().toString(), a.epoch(), position);
        } else if (change instanceof Change.PutRelease c) {
            type = "ReleasePublished";
            payload.put("visibility", c.visibility());
            var items = payload.putArray("items");
            for (Change.ItemRef ref : c.items()) {
                if (!state.itemRevisionLive(s, ref.itemId(), ref.revision())) {
                    throw new ApiException(ProblemCode.REVISION_CONFLICT, "release " + c.releaseId()
                            + " names item " + ref.itemId() + " revision " + ref.revision()
                            + ", which does not exist (or deleted the item)");
                }
                items.addObject().put("itemId", ref.itemId()).put("revision", ref.revision());
                deps.add(new Dependency("item", ref.itemId(), ref.revision()));
            }
            state.upsertRelease(s, c.releaseId(), revision, c.visibility(), items.toString(), a.epoch(), position);
        } else {
            throw new IllegalArgumentException("unknown change " + change);
        }
        state.insertRevision(s, change.aggregateType(), change.aggregateId(), revision, payload.toString(), deleted,
                a.epoch(), position, eventId);
        OutboxRow row = a.append(eventId, txId, ordinal, count, type, change.aggregateType(), change.aggregateId(),
                revision, deps, payload);
        outbox.insert(s, row);
        return revision;
    }

    private static void checkExpected(Integer expected, int current, Change change) {
        if (expected != null && expected != current) {
            throw new ApiException(ProblemCode.REVISION_CONFLICT, "%s %s is at revision %d, not %d"
                    .formatted(change.aggregateType(), change.aggregateId(), current, expected));
        }
    }
}
