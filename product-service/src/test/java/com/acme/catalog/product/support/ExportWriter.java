package com.acme.catalog.product.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportManifest.ManifestObject;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes what the resolver would export of a {@link ChainWriter} history at cursor W, without the resolver: each
 * aggregate's current row at W, the whole revision history through W, checksums and the manifest, in the export
 * format (CSV, every field quoted, gzip). For tests that load a shadow generation from a history they made.
 */
public final class ExportWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExportWriter() {
    }

    /** @return the manifest's key; the manifest is of the chain's epoch */
    public static String write(ObjectStore store, StreamId stream, List<ChainWriter.Event> chain, int w,
            String folder) throws IOException {
        Map<String, ChainWriter.Event> current = new TreeMap<>();
        List<String[]> history = new ArrayList<>();
        for (ChainWriter.Event e : chain.subList(0, w)) {
            Change c = e.change();
            if (!List.of("item", "mapping", "policy", "release").contains(c.aggregateType())) {
                continue;
            }
            current.put(c.aggregateType() + "\u0000" + c.aggregateId(), e);
            boolean deleted = c.type().equals("ItemDeleted");
            history.add(new String[] {c.aggregateType(), c.aggregateId(), Integer.toString(c.revision()),
                deleted ? "t" : "f", deleted ? "{}" : c.payload().toString(), Long.toString(e.epoch()),
                Long.toString(e.position()), JSON.readTree(e.wire()).get("eventId").stringValue()});
        }
        history.sort(Comparator.<String[], String>comparing(r -> r[0]).thenComparing(r -> r[1])
                .thenComparingInt(r -> Integer.parseInt(r[2])));
        Map<ExportTable, List<String[]>> rows = new EnumMap<>(ExportTable.class);
        for (ExportTable t : ExportTable.values()) {
            rows.put(t, new ArrayList<>());
        }
        rows.put(ExportTable.revisions, history);
        Map<String, ExportTable> tables = Map.of("item", ExportTable.items, "mapping", ExportTable.mappings,
                "policy", ExportTable.policies, "release", ExportTable.releases);
        current.values().forEach(e -> {
            Change c = e.change();
            JsonNode p = c.payload();
            String id = c.aggregateId();
            String revision = Integer.toString(c.revision());
            rows.get(tables.get(c.aggregateType())).add(switch (c.aggregateType()) {
                case "item" -> c.type().equals("ItemDeleted") ? new String[] {id, revision, "t", "{}"}
                        : new String[] {id, revision, "f", p.get("attributes").toString()};
                case "mapping" -> new String[] {id, revision, p.get("source").stringValue(),
                    p.get("target").stringValue()};
                case "policy" -> new String[] {id, revision, p.get("rules").toString()};
                default -> new String[] {id, revision, p.get("visibility").stringValue(), p.get("items").toString()};
            });
        });
        for (ExportTable t : List.of(ExportTable.items, ExportTable.mappings, ExportTable.policies,
                ExportTable.releases)) {
            rows.get(t).sort(Comparator.comparing(r -> r[0]));
        }

        String manifestKey = "test-exports/" + folder + "/" + ExportFormat.MANIFEST_NAME;
        Map<Table, TableChecksum> sums = new EnumMap<>(Table.class);
        List<ManifestObject> objects = new ArrayList<>();
        for (ExportTable t : ExportTable.values()) {
            AcceptedStateChecksum.Accumulator acc = new AcceptedStateChecksum.Accumulator(t.name(), t.columns());
            byte[] bytes = gzip(t, rows.get(t), acc);
            String name = ExportFormat.objectName(t);
            ObjectStore.StoredObject stored = store.put(ExportFormat.siblingKey(manifestKey, name),
                    ExportFormat.OBJECT_CONTENT_TYPE, o -> o.write(bytes));
            TableChecksum sum = acc.finish();
            t.profileTable().ifPresent(p -> sums.put(p, sum));
            objects.add(new ManifestObject(name, t, rows.get(t).size(), stored.bytes(), stored.sha256(),
                    ExportFormat.OBJECT_CONTENT_TYPE, ExportFormat.OBJECT_FORMAT, ExportFormat.OBJECT_COMPRESSION,
                    ExportFormat.columns(t)));
        }
        String digest = w == 0 ? ChainDigest.ZERO : chain.get(w - 1).chainDigest();
        long epoch = chain.isEmpty() ? 1 : chain.get(0).epoch();
        ExportManifest m = new ExportManifest(folder, stream.tenant(), stream.catalog(), epoch, w, digest,
                Instant.now(), AcceptedStateChecksum.PROFILE, sums, objects);
        byte[] json = m.toJson();
        store.put(manifestKey, ExportFormat.MANIFEST_CONTENT_TYPE, o -> o.write(json));
        return manifestKey;
    }

    private static byte[] gzip(ExportTable t, List<String[]> rows, AcceptedStateChecksum.Accumulator acc)
            throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write((String.join(",", ExportFormat.columns(t)) + "\n").getBytes(StandardCharsets.UTF_8));
            for (String[] r : rows) {
                try {
                    acc.row(ExportFormat.fields(t, r));
                } catch (CorruptExportException e) {
                    throw new IllegalStateException(e);
                }
                List<String> quoted = new ArrayList<>(r.length);
                for (String f : r) {
                    quoted.add('"' + f.replace("\"", "\"\"") + '"');
                }
                out.write((String.join(",", quoted) + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return gz.toByteArray();
    }
}
