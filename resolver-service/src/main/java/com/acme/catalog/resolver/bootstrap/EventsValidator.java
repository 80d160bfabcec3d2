package com.acme.catalog.resolver.bootstrap;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChunkWriter;

import tools.jackson.databind.ObjectMapper;

/**
 * The first pass over an events file, before any write: every event on its own (the rules of
 * {@link SnapshotEvent#from}, streamed by {@link EventsScanner} without building payloads),
 * then across the file: unique ids, aggregate versions 1, 2, … per aggregate in file order, deletes only of
 * items that exist at that point, releases only of item revisions that exist and are not deletions. A file that
 * passes can only fail to import for reasons outside the file (the database, a concurrent writer). Memory grows
 * with the number of ids and aggregates, not with the payloads.
 */
final class EventsValidator {

    private final ObjectMapper json;

    EventsValidator(ObjectMapper json) {
        this.json = json;
    }

    /**
     * @throws RejectedEventException naming the first bad event
     */
    Validated validate(Path file, long maxEventBytes) {
        Set<String> ids = new HashSet<>();
        Map<String, Aggregate> aggregates = new HashMap<>();
        int events = 0;
        long bytes = 0;
        String sha256;
        try (EventsScanner reader = new EventsScanner(json, file, maxEventBytes)) {
            EventsScanner.Scanned e;
            while ((e = reader.next()) != null) {
                if (!ids.add(e.id())) {
                    throw SnapshotEvent.invalidEvent(e.index(), e.id(), "id is not unique in the file");
                }
                check(e, aggregates);
                events++;
                bytes += e.bytes();
            }
            sha256 = reader.sha256();
        }
        if (events == 0) {
            throw new RejectedEventException(ProblemCode.INVALID_BODY, null, null, "the events array is empty");
        }
        return new Validated(events, bytes, sha256, new Aggregates(aggregates));
    }

    private static void check(EventsScanner.Scanned e, Map<String, Aggregate> aggregates) {
        Aggregate a = aggregates.computeIfAbsent(e.aggregateType() + '\u0000' + e.aggregateId(),
                k -> new Aggregate());
        if (e.version() != a.version + 1) {
            throw SnapshotEvent.invalidEvent(e.index(), e.id(), "aggregateversion %d of %s %s, expected %d (versions "
                    .formatted(e.version(), e.aggregateType(), e.aggregateId(), a.version + 1)
                    + "count 1, 2, ... per aggregate in file order)");
        }
        if (e.delete() && !a.live()) {
            throw SnapshotEvent.invalidEvent(e.index(), e.id(), "deletes item " + e.aggregateId()
                    + ", which does not exist at this point of the file");
        }
        for (Change.ItemRef ref : e.refs()) {
            Aggregate item = aggregates.get("item\u0000" + ref.itemId());
            if (item == null || !item.liveRevision(ref.revision())) {
                throw SnapshotEvent.invalidEvent(e.index(), e.id(), "release " + e.aggregateId()
                        + " names item " + ref.itemId() + " revision " + ref.revision()
                        + ", which does not exist at this point of the file (or deleted the item)");
            }
        }
        a.version++;
        if (e.delete()) {
            a.deletions().set(a.version);
        }
    }

    /**
     * What the first pass learnt: event count, input bytes of the events, SHA-256 of the file, and every
     * aggregate's revisions (compactly: how many, which are deletions).
     */
    record Validated(int events, long bytes, String sha256, Aggregates aggregates) {
    }

    /**
     * Every aggregate of a validated file: its last version and which versions delete it. Imported into an empty
     * stream, version {@code v} of an aggregate becomes its revision {@code v}, so this answers what the write path
     * would otherwise read under the cursor lock: the state of the aggregates a chunk touches before the chunk.
     */
    static final class Aggregates {

        private final Map<String, Aggregate> byKey;

        private Aggregates(Map<String, Aggregate> byKey) {
            this.byKey = byKey;
        }

        /**
         * The state before {@code chunk} (consecutive events of the validated file) of every aggregate it touches,
         * and the item revisions its releases name, which validation proved live.
         */
        ChunkWriter.PriorState before(List<SnapshotEvent> chunk) {
            ChunkWriter.PriorState prior = new ChunkWriter.PriorState();
            Set<String> seen = new HashSet<>();
            for (SnapshotEvent e : chunk) {
                Change change = e.change();
                String key = change.aggregateType() + '\u0000' + change.aggregateId();
                if (seen.add(key) && e.aggregateVersion() > 1) {
                    int before = e.aggregateVersion() - 1;
                    Aggregate a = byKey.get(key);
                    prior.current(change.aggregateType(), change.aggregateId(), before, a.isDeletion(before));
                }
                if (change instanceof Change.PutRelease release) {
                    for (Change.ItemRef ref : release.items()) {
                        Aggregate item = byKey.get("item\u0000" + ref.itemId());
                        if (item != null && item.liveRevision(ref.revision())) {
                            prior.liveItemRevision(ref.itemId(), ref.revision());
                        }
                    }
                }
            }
            return prior;
        }
    }

    private static final class Aggregate {
        int version;
        private BitSet deletions;

        BitSet deletions() {
            if (deletions == null) {
                deletions = new BitSet();
            }
            return deletions;
        }

        boolean live() {
            return version > 0 && !isDeletion(version);
        }

        boolean liveRevision(int revision) {
            return revision >= 1 && revision <= version && !isDeletion(revision);
        }

        private boolean isDeletion(int revision) {
            return deletions != null && deletions.get(revision);
        }
    }
}
