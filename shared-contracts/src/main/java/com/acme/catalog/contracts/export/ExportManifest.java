package com.acme.catalog.contracts.export;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The manifest of one export (docs/exports.md "Objects and manifest"): which (stream, epoch) and cursor W it is, the
 * chain digest at W, the state checksum of the exported state (the {@code accepted-state-v1} tables; the revision
 * history has no profile checksum), and every object ({@link ExportTable}) with its row count, size and SHA-256 exactly
 * as stored. Written last: an export whose manifest exists is complete.
 */
public record ExportManifest(String exportId, String tenant, String catalog, long epoch, long cursor,
        String chainDigest, Instant createdAt, String checksumProfile, Map<Table, TableChecksum> stateChecksum,
        List<ManifestObject> objects) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public ExportManifest {
        Objects.requireNonNull(exportId, "exportId");
        Objects.requireNonNull(createdAt, "createdAt");
        if (!ChainDigest.isDigest(chainDigest)) {
            throw new IllegalArgumentException("chainDigest must be 64 lowercase hex characters");
        }
        stateChecksum = Map.copyOf(stateChecksum);
        objects = List.copyOf(objects);
    }

    /** The object holding {@code table}; never null for a manifest this code wrote or parsed. */
    public ManifestObject object(Table table) {
        return object(ExportTable.of(table));
    }

    /** The object holding {@code table}; never null for a manifest this code parsed (it has every table). */
    public ManifestObject object(ExportTable table) {
        return objects.stream().filter(o -> o.table() == table).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("manifest has no object for " + table));
    }

    /** One table object, as stored. */
    public record ManifestObject(String name, ExportTable table, long rows, long bytes, String sha256,
            String contentType,
            String format, String compression, List<String> columns) {

        public ManifestObject {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(table, "table");
            columns = List.copyOf(columns);
        }
    }

    /** The manifest as UTF-8 JSON, members in the order docs/exports.md lists them. */
    public byte[] toJson() {
        ObjectNode m = JSON.createObjectNode();
        m.put("format", ExportFormat.MANIFEST_FORMAT);
        m.put("formatVersion", ExportFormat.FORMAT_VERSION);
        m.put("exportId", exportId);
        m.put("tenant", tenant);
        m.put("catalog", catalog);
        m.put("epoch", epoch);
        m.put("cursor", cursor);
        m.put("chainDigest", chainDigest);
        m.put("createdAt", createdAt.toString());
        m.put("checksumProfile", checksumProfile);
        ObjectNode sums = m.putObject("stateChecksum");
        for (Table t : Table.values()) {
            TableChecksum c = stateChecksum.get(t);
            if (c != null) {
                sums.putObject(t.name()).put("rows", c.rows()).put("sha256", c.sha256());
            }
        }
        ArrayNode objs = m.putArray("objects");
        for (ManifestObject o : objects) {
            ObjectNode n = objs.addObject();
            n.put("name", o.name());
            n.put("table", o.table().name());
            n.put("rows", o.rows());
            n.put("bytes", o.bytes());
            n.put("sha256", o.sha256());
            n.put("contentType", o.contentType());
            n.put("format", o.format());
            n.put("compression", o.compression());
            ArrayNode cols = n.putArray("columns");
            o.columns().forEach(cols::add);
        }
        return JSON.writeValueAsString(m).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a manifest.
     *
     * @throws CorruptExportException when it is not a {@value ExportFormat#MANIFEST_FORMAT} manifest of
     *                                version {@value ExportFormat#FORMAT_VERSION} with every member present and an
     *                                object for every {@link ExportTable}
     */
    public static ExportManifest parse(byte[] json) throws CorruptExportException {
        try {
            JsonNode m = JSON.readTree(json);
            if (!ExportFormat.MANIFEST_FORMAT.equals(text(m, "format"))) {
                throw new CorruptExportException("not a " + ExportFormat.MANIFEST_FORMAT + " manifest");
            }
            if (number(m, "formatVersion") != ExportFormat.FORMAT_VERSION) {
                throw new CorruptExportException("manifest formatVersion " + m.path("formatVersion")
                        + " is not supported (expected " + ExportFormat.FORMAT_VERSION + ")");
            }
            Map<Table, TableChecksum> sums = new EnumMap<>(Table.class);
            JsonNode state = required(m, "stateChecksum");
            for (Table t : Table.values()) {
                JsonNode s = required(state, t.name());
                sums.put(t, new TableChecksum(number(s, "rows"), text(s, "sha256")));
            }
            List<ManifestObject> objects = new ArrayList<>();
            for (JsonNode o : required(m, "objects")) {
                List<String> columns = new ArrayList<>();
                for (JsonNode c : required(o, "columns")) {
                    columns.add(c.stringValue());
                }
                objects.add(new ManifestObject(text(o, "name"), ExportTable.valueOf(text(o, "table")),
                        number(o, "rows"), number(o, "bytes"), text(o, "sha256"), text(o, "contentType"),
                        text(o, "format"), text(o, "compression"), columns));
            }
            for (ExportTable t : ExportTable.values()) {
                if (objects.stream().noneMatch(o -> o.table() == t)) {
                    throw new CorruptExportException("manifest has no object for table " + t);
                }
            }
            return new ExportManifest(text(m, "exportId"), text(m, "tenant"), text(m, "catalog"),
                    number(m, "epoch"), number(m, "cursor"), text(m, "chainDigest"),
                    Instant.parse(text(m, "createdAt")), text(m, "checksumProfile"), sums, objects);
        } catch (JacksonException | IllegalArgumentException | java.time.DateTimeException e) {
            throw new CorruptExportException("manifest is malformed: " + e.getMessage(), e);
        }
    }

    private static JsonNode required(JsonNode n, String field) throws CorruptExportException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw new CorruptExportException("manifest lacks " + field);
        }
        return v;
    }

    private static String text(JsonNode n, String field) throws CorruptExportException {
        JsonNode v = required(n, field);
        if (!v.isString()) {
            throw new CorruptExportException("manifest member " + field + " is not a string");
        }
        return v.stringValue();
    }

    private static long number(JsonNode n, String field) throws CorruptExportException {
        JsonNode v = required(n, field);
        if (!v.isIntegralNumber()) {
            throw new CorruptExportException("manifest member " + field + " is not an integer");
        }
        return v.longValue();
    }
}
