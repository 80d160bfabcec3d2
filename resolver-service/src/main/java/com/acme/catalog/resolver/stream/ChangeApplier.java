package com.acme.catalog.resolver.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.EventAppender.Dependency;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;
import com.acme.catalog.resolver.stream.StateAccess.RevisionRow;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns logical transactions into events under a held cursor lock: one new UUIDv7 transaction id per logical
 * transaction, revisions, dependencies, payloads, current rows, revision rows and outbox rows. The single place
 * where a {@link Change} becomes stored state, whichever {@link StateAccess} carries the statements.
 */
final class ChangeApplier {

    private final ObjectMapper json;

    ChangeApplier(ObjectMapper json) {
        this.json = json;
    }

    /**
     * Applies every transaction in order; the caller advances the cursor to {@code appender.cursor()}.
     *
     * @throws LogicalTransactionFailure naming the logical transaction whose change failed, with the failure as
     *                                   its cause (callers that do not coalesce unwrap it with
     *                                   {@link LogicalTransactionFailure#unwrap})
     */
    List<WriteResult> applyAll(StreamId stream, EventAppender appender, List<List<Change>> transactions,
            StateAccess access) {
        List<WriteResult> results = new ArrayList<>(transactions.size());
        for (int t = 0; t < transactions.size(); t++) {
            List<Change> changes = transactions.get(t);
            try {
                UUID transactionId = UuidV7.next();
                long first = appender.nextPosition();
                int revision = 0;
                for (int i = 0; i < changes.size(); i++) {
                    revision = apply(stream, appender, access, changes.get(i), transactionId, i, changes.size());
                }
                results.add(new WriteResult(appender.epoch(), first, appender.nextPosition() - 1, transactionId,
                        revision));
            } catch (RuntimeException e) {
                throw new LogicalTransactionFailure(t, e);
            }
        }
        return results;
    }

    private int apply(StreamId s, EventAppender a, StateAccess state, Change change, UUID txId, int ordinal,
            int count) {
        if (change instanceof Change.RecordDecision d) {
            // an event of the transaction, not accepted state: no current row, no revision row, nothing read
            state.insertOutbox(s, a.append(EventAppender.newEventId(), txId, ordinal, count, "DecisionRecorded",
                    d.aggregateType(), d.aggregateId(), 1, List.of(), d.payload()));
            return 1;
        }
        CurrentRevision current = state.current(s, change.aggregateType(), change.aggregateId());
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
                deps.add(new Dependency(AggregateType.ITEM.wire(), ref.itemId(), ref.revision()));
            }
            state.upsertRelease(s, c.releaseId(), revision, c.visibility(), items.toString(), a.epoch(), position);
        } else {
            throw new IllegalArgumentException("unknown change " + change);
        }
        state.insertRevision(s, new RevisionRow(change.aggregateType(), change.aggregateId(), revision,
                payload.toString(), deleted, a.epoch(), position, eventId));
        OutboxRow row = a.append(eventId, txId, ordinal, count, type, change.aggregateType(), change.aggregateId(),
                revision, deps, payload);
        state.insertOutbox(s, row);
        return revision;
    }

    private static void checkExpected(Integer expected, int current, Change change) {
        if (expected != null && expected != current) {
            throw new ApiException(ProblemCode.REVISION_CONFLICT, "%s %s is at revision %d, not %d"
                    .formatted(change.aggregateType(), change.aggregateId(), current, expected));
        }
    }
}
