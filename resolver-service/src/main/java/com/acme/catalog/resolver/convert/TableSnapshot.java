package com.acme.catalog.resolver.convert;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.resolver.stream.ChangeParser;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts a per-table snapshot (docs/bootstrap-import.md "The per-table snapshot format"): a directory of JSON Lines
 * files, one per table, {@code items.jsonl}, {@code mappings.jsonl}, {@code policies.jsonl}, {@code releases.jsonl}
 * and {@code release_items.jsonl} (the releases' item versions, folded into their release's event). Any other file
 * is a table excluded from conversion: listed, never read. Rows may come in any order; each aggregate's rows are
 * sorted by their {@code version} (any integers, one row per version) and become aggregate versions 1, 2, …; a
 * release's item versions are translated to those derived revisions. Members other than the documented ones
 * (a source system's transaction ids, offsets, timestamps) are ignored and never copied.
 *
 * <p>Output order: items by id, each by version; mappings; policies; then releases in ascending
 * ({@code sequence}, id, version), so every item version a release names comes before it. Every event is checked
 * with the write path's own parsing rules ({@link ChangeParser}) before anything is written for it.
 */
final class TableSnapshot {

    static final List<String> TABLES = List.of("items.jsonl", "mappings.jsonl", "policies.jsonl", "releases.jsonl",
            "release_items.jsonl");

    private static final Comparator<Row> BY_ID_VERSION = Comparator.comparing(Row::id).thenComparingLong(Row::version);

    private final Path dir;
    private final ObjectMapper json;
    private final Map<String, Long> rowsRead = new LinkedHashMap<>();
    private long droppedTombstones;

    TableSnapshot(Path dir, ObjectMapper json) {
        this.dir = dir;
        this.json = json;
    }

    /** The files of the directory that are not snapshot tables, by name. */
    List<String> ignoredFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !TABLES.contains(n)).sorted().toList();
        }
    }

    Converted convert(EventsJsonWriter out) throws IOException {
        if (TABLES.stream().noneMatch(t -> Files.isRegularFile(dir.resolve(t)))) {
            throw new SnapshotRejectedException(dir + " holds none of the snapshot tables " + TABLES);
        }
        List<Row> items = read("items.jsonl", this::itemRow);
        List<Row> mappings = read("mappings.jsonl", this::mappingRow);
        List<Row> policies = read("policies.jsonl", this::policyRow);
        List<Row> releases = read("releases.jsonl", this::releaseRow);
        List<ReleaseItem> releaseItems = read("release_items.jsonl", this::releaseItemRow);
        long readDone = System.nanoTime();

        Map<String, Long> aggregates = new LinkedHashMap<>();
        Map<String, ItemVersions> revisions = writeItems(items, out);
        aggregates.put("item", (long) revisions.size());
        aggregates.put("mapping", writeVersioned(mappings, EventType.MappingUpserted, out));
        aggregates.put("policy", writeVersioned(policies, EventType.PolicyUpserted, out));
        aggregates.put("release", writeReleases(releases, releaseItems, revisions, out));
        return new Converted(Map.copyOf(rowsRead), aggregates, droppedTombstones, readDone);
    }

    /** Rows of one table file (none when it is absent), in file order; empty lines are skipped. */
    private <T> List<T> read(String table, RowParser<T> parser) throws IOException {
        Path file = dir.resolve(table);
        List<T> rows = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return rows;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String text;
            int line = 0;
            while ((text = in.readLine()) != null) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                Where where = new Where(table, line);
                JsonNode node;
                try {
                    node = json.readTree(text);
                } catch (JacksonException e) {
                    throw where.rejected("not valid JSON (" + e.getOriginalMessage() + ")");
                }
                if (!(node instanceof ObjectNode o)) {
                    throw where.rejected("is not a JSON object");
                }
                try {
                    rows.add(parser.parse(o, where));
                } catch (SnapshotRejectedException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw where.rejected(e.getMessage());
                }
            }
        } catch (java.nio.charset.MalformedInputException e) {
            throw new SnapshotRejectedException(table + " is not UTF-8 text", e);
        }
        rowsRead.put(table.substring(0, table.length() - ".jsonl".length()), (long) rows.size());
        return rows;
    }

    private Row itemRow(ObjectNode o, Where w) {
        String id = id(o, "itemId", w);
        long version = version(o, "version", w);
        boolean deleted = bool(o, "deleted", w);
        if (deleted) {
            return new Row(id, version, true, "{}", 0, w);
        }
        ObjectNode data = json.createObjectNode();
        data.set("attributes", o.get("attributes"));
        ChangeParser.upsertItem(id, data);
        return new Row(id, version, false, json.writeValueAsString(data), 0, w);
    }

    private Row mappingRow(ObjectNode o, Where w) {
        String id = id(o, "mappingId", w);
        ObjectNode data = json.createObjectNode();
        data.set("source", o.get("source"));
        data.set("target", o.get("target"));
        ChangeParser.upsertMapping(id, data);
        return new Row(id, version(o, "version", w), false, json.writeValueAsString(data), 0, w);
    }

    private Row policyRow(ObjectNode o, Where w) {
        String id = id(o, "policyId", w);
        ObjectNode data = json.createObjectNode();
        data.set("rules", o.get("rules"));
        ChangeParser.upsertPolicy(id, data);
        return new Row(id, version(o, "version", w), false, json.writeValueAsString(data), 0, w);
    }

    /** A release version without its items: {@code data} is its visibility until the items are folded in. */
    private Row releaseRow(ObjectNode o, Where w) {
        String id = id(o, "releaseId", w);
        JsonNode v = o.get("visibility");
        if (v == null || !v.isString() || !(v.stringValue().equals("PUBLIC") || v.stringValue().equals("PRIVATE"))) {
            throw w.rejected("visibility must be \"PUBLIC\" or \"PRIVATE\"");
        }
        return new Row(id, version(o, "version", w), false, v.stringValue(), integer(o, "sequence", 0, w), w);
    }

    private ReleaseItem releaseItemRow(ObjectNode o, Where w) {
        return new ReleaseItem(id(o, "releaseId", w), version(o, "releaseVersion", w), id(o, "itemId", w),
                version(o, "itemVersion", w), w);
    }

    /**
     * Writes every item's versions in order, deriving revisions 1, 2, …: a deletion of an item that is not live at
     * that point (its first row, or after another deletion) has nothing to delete and is dropped (counted).
     *
     * @return each item's versions and the revision each became (0: a deletion, never nameable by a release)
     */
    private Map<String, ItemVersions> writeItems(List<Row> rows, EventsJsonWriter out) throws IOException {
        rows.sort(BY_ID_VERSION);
        Map<String, ItemVersions> byItem = new HashMap<>();
        for (int start = 0; start < rows.size(); ) {
            int end = runEnd(rows, start);
            String id = rows.get(start).id();
            long[] versions = new long[end - start];
            int[] revisions = new int[end - start];
            int revision = 0;
            boolean live = false;
            for (int i = start; i < end; i++) {
                Row r = rows.get(i);
                versions[i - start] = r.version();
                if (r.deleted() && !live) {
                    droppedTombstones++;
                    continue;
                }
                revision++;
                live = !r.deleted();
                revisions[i - start] = r.deleted() ? 0 : revision;
                out.write(r.deleted() ? EventType.ItemDeleted : EventType.ItemUpserted, id, revision, r.data());
            }
            if (revision > 0) {
                byItem.put(id, new ItemVersions(versions, revisions));
            }
            start = end;
        }
        return byItem;
    }

    /** Writes mappings or policies: each aggregate's rows by version become revisions 1, 2, …. */
    private long writeVersioned(List<Row> rows, EventType type, EventsJsonWriter out) throws IOException {
        rows.sort(BY_ID_VERSION);
        long aggregates = 0;
        for (int start = 0; start < rows.size(); ) {
            int end = runEnd(rows, start);
            for (int i = start; i < end; i++) {
                out.write(type, rows.get(i).id(), i - start + 1, rows.get(i).data());
            }
            aggregates++;
            start = end;
        }
        return aggregates;
    }

    /**
     * Folds each release version's item rows into it (sorted by item id and version), translates item versions to
     * the revisions {@link #writeItems} derived, and writes the releases in ascending (sequence, id, version).
     */
    private long writeReleases(List<Row> releases, List<ReleaseItem> items, Map<String, ItemVersions> revisions,
            EventsJsonWriter out) throws IOException {
        releases.sort(BY_ID_VERSION);
        Map<String, Row> byKey = new HashMap<>();
        for (int start = 0; start < releases.size(); ) {
            int end = runEnd(releases, start);
            for (int i = start; i < end; i++) {
                Row r = releases.get(i);
                byKey.put(r.id() + '\u0000' + r.version(), r);
            }
            start = end;
        }
        Map<String, List<ReleaseItem>> folded = new HashMap<>();
        for (ReleaseItem ri : items) {
            String key = ri.releaseId() + '\u0000' + ri.releaseVersion();
            if (!byKey.containsKey(key)) {
                throw ri.where().rejected("names release " + ri.releaseId() + " version " + ri.releaseVersion()
                        + ", which is not in releases.jsonl");
            }
            folded.computeIfAbsent(key, k -> new ArrayList<>()).add(ri);
        }
        List<Row> made = new ArrayList<>(releases);
        made.sort(Comparator.comparingLong(Row::sequence).thenComparing(BY_ID_VERSION));
        Map<String, long[]> last = new HashMap<>();
        TreeSet<String> ids = new TreeSet<>();
        for (Row r : made) {
            long[] prior = last.get(r.id());
            if (prior != null && prior[0] > r.version()) {
                throw r.where().rejected("release " + r.id() + " version " + r.version() + " has a sequence after "
                        + "its version " + prior[0] + ": a release's versions must be made in version order");
            }
            int revision = prior == null ? 1 : (int) prior[1] + 1;
            last.put(r.id(), new long[] {r.version(), revision});
            ids.add(r.id());
            List<ReleaseItem> refs = folded.getOrDefault(r.id() + '\u0000' + r.version(), List.of());
            out.write(EventType.ReleasePublished, r.id(), revision, releaseData(r, refs, revisions));
        }
        return ids.size();
    }

    private String releaseData(Row release, List<ReleaseItem> refs, Map<String, ItemVersions> revisions) {
        List<ReleaseItem> sorted = new ArrayList<>(refs);
        sorted.sort(Comparator.comparing(ReleaseItem::itemId).thenComparingLong(ReleaseItem::itemVersion));
        ObjectNode data = json.createObjectNode();
        data.put("visibility", release.data());
        var array = data.putArray("items");
        for (ReleaseItem ri : sorted) {
            ItemVersions v = revisions.get(ri.itemId());
            int revision = v == null ? 0 : v.revisionOf(ri.itemVersion());
            if (revision == 0) {
                throw ri.where().rejected("release " + ri.releaseId() + " version " + ri.releaseVersion()
                        + " names item " + ri.itemId() + " version " + ri.itemVersion()
                        + ", which is not in items.jsonl (or is a deletion)");
            }
            array.addObject().put("itemId", ri.itemId()).put("revision", revision);
        }
        try {
            ChangeParser.putRelease(release.id(), data);
        } catch (RuntimeException e) {
            throw release.where().rejected(e.getMessage());
        }
        return json.writeValueAsString(data);
    }

    /** The end (exclusive) of the run of rows of one aggregate starting at {@code start}; rejects a repeated version. */
    private static int runEnd(List<Row> rows, int start) {
        int end = start + 1;
        while (end < rows.size() && rows.get(end).id().equals(rows.get(start).id())) {
            Row a = rows.get(end - 1);
            Row b = rows.get(end);
            if (a.version() == b.version()) {
                throw b.where().rejected(b.id() + " version " + b.version() + " is also at " + a.where()
                        + " (one row per version; a row without version is version 1)");
            }
            end++;
        }
        return end;
    }

    private static String id(ObjectNode o, String field, Where w) {
        JsonNode v = o.get(field);
        if (v == null || !v.isString() || !AggregateIds.isId(v.stringValue())) {
            throw w.rejected(field + " must be 1-128 characters of [A-Za-z0-9._:-]");
        }
        return v.stringValue();
    }

    private static long version(ObjectNode o, String field, Where w) {
        return integer(o, field, 1, w);
    }

    private static long integer(ObjectNode o, String field, long absent, Where w) {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw w.rejected(field + " must be an integer");
        }
        return v.longValue();
    }

    private static boolean bool(ObjectNode o, String field, Where w) {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw w.rejected(field + " must be true or false");
        }
        return v.booleanValue();
    }

    /** What the snapshot held: rows read per table, aggregates by type, dropped tombstones, when reading ended. */
    record Converted(Map<String, Long> rows, Map<String, Long> aggregates, long droppedTombstones,
            long readDoneNanos) {
    }

    @FunctionalInterface
    private interface RowParser<T> {
        T parse(ObjectNode row, Where where);
    }

    /** A file and line, for messages. */
    private record Where(String table, int line) {
        SnapshotRejectedException rejected(String problem) {
            return new SnapshotRejectedException(this + ": " + problem);
        }

        @Override
        public String toString() {
            return table + " line " + line;
        }
    }

    /**
     * One row of an aggregate table: its id, version, whether it is a deletion, its payload (a release's: its
     * visibility), its sequence (releases) and where it was read.
     */
    private record Row(String id, long version, boolean deleted, String data, long sequence, Where where) {
    }

    private record ReleaseItem(String releaseId, long releaseVersion, String itemId, long itemVersion, Where where) {
    }

    /** An item's versions, ascending, and the revision each became (0: not nameable). */
    private record ItemVersions(long[] versions, int[] revisions) {
        int revisionOf(long version) {
            int i = Arrays.binarySearch(versions, version);
            return i < 0 ? 0 : revisions[i];
        }
    }
}
