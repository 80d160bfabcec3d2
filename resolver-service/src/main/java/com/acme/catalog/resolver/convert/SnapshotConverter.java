package com.acme.catalog.resolver.convert;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.objectstore.ObjectStore;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The snapshot converter as a library call (the {@code --convert-snapshot} mode of the jar runs the same): writes
 * the bootstrap import's events.json from a stream's export ({@link #convertExport}) or from a per-table snapshot
 * ({@link #convertTables}). Guarantees, whatever the input:
 * <ul>
 *   <li>every event is a new synthetic creation: a new id, nothing of the source's transaction ids, ordinals,
 *       counts, positions, epochs or event ids (the import gives each event its own singleton transaction);</li>
 *   <li>one event is one revision of one aggregate, never two source changes folded into one;</li>
 *   <li>parents first: every item revision before any release that names it; a release names only revisions the
 *       file creates before it, and never a deletion;</li>
 *   <li>the same input and seed give the same bytes; without a seed, only the ids differ;</li>
 *   <li>the output file appears only when the conversion succeeded (written beside it, then moved into place); a
 *       rejected snapshot leaves no output.</li>
 * </ul>
 */
public final class SnapshotConverter {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private SnapshotConverter() {
    }

    /**
     * Converts the export whose manifest is at {@code manifestKey} in {@code store}, verifying every object and the
     * state checksum on the way.
     *
     * @param seed makes the event ids reproducible; null takes them from the clock
     * @throws SnapshotRejectedException when the export is not what its manifest promises (nothing written)
     * @throws IOException               when the store or the output cannot be read or written
     */
    public static ConversionSummary convertExport(ObjectStore store, String manifestKey, Path output, Long seed)
            throws IOException {
        long started = System.nanoTime();
        ExportSnapshot.Converted[] converted = new ExportSnapshot.Converted[1];
        EventsJsonWriter.Written written = write(output, seed, out -> converted[0] =
                new ExportSnapshot(store, manifestKey).convert(out));
        ExportManifest m = converted[0].manifest();
        Map<String, TableChecksum> expected = new LinkedHashMap<>();
        for (Table t : Table.values()) {
            expected.put(t.name(), m.stateChecksum().get(t));
        }
        return summary(new ConversionSummary.Source("export", store.describe() + " " + manifestKey, m.exportId(),
                m.tenant(), m.catalog(), m.epoch(), m.cursor(), null), written, converted[0].aggregates(), 0,
                List.of(), output, seed, expected, started, converted[0].readDoneNanos());
    }

    /**
     * Converts the per-table snapshot in {@code directory} (docs/bootstrap-import.md "The per-table snapshot
     * format").
     *
     * @param seed makes the event ids reproducible; null takes them from the clock
     * @throws SnapshotRejectedException naming the file and line of the first bad row (nothing written)
     * @throws IOException               when a file cannot be read or the output written
     */
    public static ConversionSummary convertTables(Path directory, Path output, Long seed) throws IOException {
        long started = System.nanoTime();
        if (!Files.isDirectory(directory)) {
            throw new SnapshotRejectedException(directory + " is not a directory of snapshot tables");
        }
        TableSnapshot snapshot = new TableSnapshot(directory, JSON);
        List<String> ignored = snapshot.ignoredFiles();
        TableSnapshot.Converted[] converted = new TableSnapshot.Converted[1];
        EventsJsonWriter.Written written = write(output, seed, out -> converted[0] = snapshot.convert(out));
        TableSnapshot.Converted c = converted[0];
        return summary(new ConversionSummary.Source("tables", directory.toString(), null, null, null, null, null,
                c.rows()), written, c.aggregates(), c.droppedTombstones(), ignored, output, seed, null, started,
                c.readDoneNanos());
    }

    private interface Body {
        void write(EventsJsonWriter out) throws IOException;
    }

    /** Writes beside {@code output} and moves the file into place only when {@code body} completed. */
    private static EventsJsonWriter.Written write(Path output, Long seed, Body body) throws IOException {
        Path target = output.toAbsolutePath();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + "-", ".tmp");
        boolean moved = false;
        try {
            EventsJsonWriter.Written written;
            try (EventsJsonWriter out = new EventsJsonWriter(tmp, EventIds.of(seed))) {
                body.write(out);
                written = out.finish();
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
            return written;
        } finally {
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    private static ConversionSummary summary(ConversionSummary.Source source, EventsJsonWriter.Written written,
            Map<String, Long> aggregates, long dropped, List<String> ignored, Path output, Long seed,
            Map<String, TableChecksum> expected, long started, long readDone) {
        long now = System.nanoTime();
        Map<String, Long> byType = new LinkedHashMap<>();
        written.byType().forEach((type, n) -> byType.put(type.name(), n));
        return new ConversionSummary("CONVERTED", source, written.events(), byType, aggregates, dropped, ignored,
                output.toString(), written.bytes(), written.sha256(), seed, expected,
                new ConversionSummary.Timings(millis(readDone - started), millis(now - readDone),
                        millis(now - started)));
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e5) / 10.0;
    }
}
