package com.acme.catalog.resolver.convert;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore;

/**
 * Converts a stream's export (docs/exports.md): every object is read through {@link ExportObjectReader}, which proves
 * its size, SHA-256, row count and header against the manifest, and the four current-state tables' profile checksums
 * against the manifest's {@code stateChecksum}. The events come from the revision history: one event per revision,
 * {@code aggregateversion} its revision, {@code data} the payload that made it, exactly as stored. So an import of the
 * output into an empty stream reproduces every aggregate's current revision and content, and every revision a
 * release names: the {@code accepted-state-v1} checksum of the export.
 *
 * <p>Order: the history object is sorted by (type, id, revision) and types sort item, mapping, policy, release, so
 * items, mappings and policies are written as the history streams; releases are held back and written last in the
 * order they were made (the product serves an item from the release made last), which also puts every item revision
 * a release names before it. Nothing of the source's positions, epochs or event ids is written.
 */
final class ExportSnapshot {

    private final ObjectStore store;
    private final String manifestKey;

    ExportSnapshot(ObjectStore store, String manifestKey) {
        this.store = store;
        this.manifestKey = manifestKey;
    }

    /** Reads and verifies the export, writing its events to {@code out}. */
    Converted convert(EventsJsonWriter out) throws IOException {
        ExportManifest manifest;
        try {
            manifest = ExportObjectReader.manifest(store, manifestKey);
        } catch (CorruptExportException e) {
            throw new SnapshotRejectedException("the manifest " + manifestKey + " is not usable: " + e.getMessage(), e);
        }
        try {
            Map<AggregateType, Map<String, Current>> current = new EnumMap<>(AggregateType.class);
            for (Table t : Table.values()) {
                current.put(type(t), readCurrent(manifest, t));
            }
            History history = new History(current, out);
            read(manifest.object(ExportTable.revisions), history::row);
            long readDone = System.nanoTime();
            history.finish();
            Map<String, Long> aggregates = new HashMap<>();
            current.forEach((type, rows) -> aggregates.put(type.wire(), (long) rows.size()));
            return new Converted(manifest, aggregates, readDone);
        } catch (CorruptExportException e) {
            throw new SnapshotRejectedException("export " + manifest.exportId() + " is not what its manifest "
                    + "promises: " + e.getMessage(), e);
        }
    }

    /** One current-state object, verified, as each aggregate's current revision and whether it is deleted. */
    private Map<String, Current> readCurrent(ExportManifest manifest, Table table) throws IOException {
        Map<String, Current> rows = new HashMap<>();
        boolean items = table == Table.items;
        TableChecksum sum = read(manifest.object(table), fields -> rows.put(fields[0],
                new Current(parseInt(table.name(), fields[1]), items && "t".equals(fields[2]))));
        TableChecksum promised = manifest.stateChecksum().get(table);
        if (!sum.equals(promised)) {
            throw new CorruptExportException("table %s checksums to %s, the manifest says %s"
                    .formatted(table, sum, promised));
        }
        return rows;
    }

    /** Reads one object through the verifying reader; a problem is reported with the object's name. */
    private TableChecksum read(ExportManifest.ManifestObject object, ExportObjectReader.RowHandler handler)
            throws IOException {
        try {
            return ExportObjectReader.read(store, manifestKey, object, handler);
        } catch (CorruptExportException e) {
            throw e.getMessage().startsWith(object.name()) ? e
                    : new CorruptExportException(object.name() + ": " + e.getMessage(), e);
        }
    }

    private static AggregateType type(Table t) {
        return switch (t) {
            case items -> AggregateType.ITEM;
            case mappings -> AggregateType.MAPPING;
            case policies -> AggregateType.POLICY;
            case releases -> AggregateType.RELEASE;
        };
    }

    private static int parseInt(String where, String v) throws CorruptExportException {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new CorruptExportException(where + ": revision is not an integer: " + v);
        }
    }

    private static long parseLong(String where, String v) throws CorruptExportException {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new CorruptExportException(where + ": epoch or position is not an integer: " + v);
        }
    }

    /** The export that was converted, its aggregates by type, and when its last object was read. */
    record Converted(ExportManifest manifest, Map<String, Long> aggregates, long readDoneNanos) {
    }

    private record Current(int revision, boolean deleted) {
    }

    /** A release revision held back: where it was made (only to order it), its id, revision and payload. */
    private record HeldRelease(long epoch, long position, String id, int revision, String data) {
    }

    /**
     * The history object's rows in their order: checks that each aggregate's revisions are 1, 2, … and end at its
     * current revision (and deletion), writes items, mappings and policies at once and holds releases back.
     */
    private static final class History {
        private static final Comparator<HeldRelease> MADE = Comparator.comparingLong(HeldRelease::epoch)
                .thenComparingLong(HeldRelease::position);

        private final Map<AggregateType, Map<String, Current>> current;
        private final EventsJsonWriter out;
        private final List<HeldRelease> releases = new ArrayList<>();
        private AggregateType type;
        private String id;
        private int revision;
        private boolean deleted;
        private long rows;
        private final Map<AggregateType, Long> seen = new EnumMap<>(AggregateType.class);

        History(Map<AggregateType, Map<String, Current>> current, EventsJsonWriter out) {
            this.current = current;
            this.out = out;
        }

        void row(String[] f) throws IOException {
            rows++;
            AggregateType t = AggregateType.parse(f[0]);
            if (t == null || t == AggregateType.DECISION) {
                throw corrupt("aggregate_type '" + f[0] + "' is not item, mapping, policy or release");
            }
            String aggregate = f[1];
            if (!AggregateIds.isId(aggregate)) {
                throw corrupt("aggregate_id '" + aggregate + "' is not an id");
            }
            int r = parseInt("revisions row " + rows, f[2]);
            boolean isDeletion = "t".equals(f[3]);
            boolean same = t == type && aggregate.equals(id);
            if (!same) {
                if (type != null && (t.ordinal() < type.ordinal() || t == type && aggregate.compareTo(id) <= 0)) {
                    throw corrupt("is out of order (" + t.wire() + " " + aggregate + " after " + type.wire() + " "
                            + id + ")");
                }
                endAggregate();
                type = t;
                id = aggregate;
                revision = 0;
            }
            if (r != revision + 1) {
                throw corrupt(t.wire() + " " + aggregate + " revision " + r + " follows revision " + revision
                        + " (revisions count 1, 2, ...)");
            }
            revision = r;
            deleted = isDeletion;
            String data = f[4];
            if (t == AggregateType.RELEASE) {
                releases.add(new HeldRelease(parseLong("revisions row " + rows, f[5]),
                        parseLong("revisions row " + rows, f[6]), aggregate, r, data));
                return;
            }
            EventType event = switch (t) {
                case ITEM -> isDeletion ? EventType.ItemDeleted : EventType.ItemUpserted;
                case MAPPING -> EventType.MappingUpserted;
                case POLICY -> EventType.PolicyUpserted;
                default -> throw new IllegalStateException(t.wire());
            };
            out.write(event, aggregate, r, isDeletion ? "{}" : data);
        }

        /** The previous aggregate's last revision must be its current one. */
        private void endAggregate() throws CorruptExportException {
            if (type == null) {
                return;
            }
            Current c = current.get(type).get(id);
            if (c == null) {
                throw corrupt(type.wire() + " " + id + " has revisions but no current row");
            }
            if (c.revision() != revision || c.deleted() != deleted) {
                throw corrupt(type.wire() + " " + id + " ends at revision " + revision + (deleted ? " (deleted)" : "")
                        + ", its current row is at revision " + c.revision() + (c.deleted() ? " (deleted)" : ""));
            }
            seen.merge(type, 1L, Long::sum);
        }

        /**
         * After the last row: every current aggregate had its history (each aggregate's revisions are one run of
         * the sorted object, so equal counts mean every one); releases are written in the order they were made.
         */
        void finish() throws IOException {
            endAggregate();
            for (Map.Entry<AggregateType, Map<String, Current>> e : current.entrySet()) {
                long histories = seen.getOrDefault(e.getKey(), 0L);
                if (histories != e.getValue().size()) {
                    throw new CorruptExportException("the history holds " + histories + " " + e.getKey().wire()
                            + " aggregates, the current state " + e.getValue().size());
                }
            }
            releases.sort(MADE);
            for (HeldRelease r : releases) {
                out.write(EventType.ReleasePublished, r.id(), r.revision(), r.data());
            }
        }

        private CorruptExportException corrupt(String problem) {
            return new CorruptExportException("revisions row " + rows + ": " + problem);
        }
    }
}
