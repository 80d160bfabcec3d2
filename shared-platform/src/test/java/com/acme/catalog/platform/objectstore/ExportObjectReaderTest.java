package com.acme.catalog.platform.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportManifest.ManifestObject;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.contracts.objectstore.ObjectStore.StoredObject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.acme.catalog.contracts.export.CsvRecordReader;

/**
 * The verifying reader accepts exactly what the manifest promises and detects every kind of damage: a flipped
 * byte, a truncated object, a row-count or checksum mismatch, a wrong header.
 */
class ExportObjectReaderTest {

    private static final String MANIFEST = "exports/acme/shoes/e1/x/manifest.json";

    @TempDir
    Path dir;
    ObjectStore store;
    ExportManifest manifest;

    /** PostgreSQL CSV rows (header first) for each table; quoted fields with commas, quotes and a newline. */
    private static final Map<ExportTable, String> CSV = Map.of(
            ExportTable.items, """
                    item_id,revision,deleted,attributes
                    a,2,t,{}
                    b,1,f,"{""a"": [1, 2], ""z"": ""x,y""}"
                    c:1,7,f,"{""name"": ""Zoë ü""}"
                    """,
            ExportTable.mappings, """
                    mapping_id,revision,source,target
                    m1,1,"colour
                    line two",color
                    m2,3,"",""
                    """,
            ExportTable.policies, "policy_id,revision,rules\n",
            ExportTable.releases, """
                    release_id,revision,visibility,items
                    r1,1,PUBLIC,"[{""itemId"": ""b"", ""revision"": 1}]"
                    """,
            ExportTable.revisions, """
                    aggregate_type,aggregate_id,revision,deleted,content,epoch,position,event_id
                    item,a,1,f,"{""attributes"": {}}",1,1,0193a3b4-0000-7000-8000-000000000001
                    item,a,2,t,{},1,4,0193a3b4-0000-7000-8000-000000000004
                    item,b,1,f,"{""attributes"": {""a"": [1, 2], ""z"": ""x,y""}}",1,2,0193a3b4-0000-7000-8000-000000000002
                    """);

    @BeforeEach
    void writeExport() throws IOException {
        store = new FileSystemObjectStore(dir);
        Map<Table, TableChecksum> sums = new EnumMap<>(Table.class);
        List<ManifestObject> objects = new ArrayList<>();
        for (ExportTable t : ExportTable.values()) {
            byte[] csv = CSV.get(t).getBytes(StandardCharsets.UTF_8);
            StoredObject so = store.put(ExportFormat.siblingKey(MANIFEST, ExportFormat.objectName(t)),
                    ExportFormat.OBJECT_CONTENT_TYPE, out -> gzip(out, csv));
            long rows = CSV.get(t).lines().count() - 1 - (t == ExportTable.mappings ? 1 : 0);
            objects.add(new ManifestObject(ExportFormat.objectName(t), t, rows, so.bytes(), so.sha256(),
                    ExportFormat.OBJECT_CONTENT_TYPE, ExportFormat.OBJECT_FORMAT, ExportFormat.OBJECT_COMPRESSION,
                    ExportFormat.columns(t)));
        }
        Accumulator items = new Accumulator(Table.items);
        items.row("a", 2, true, "{}");
        items.row("b", 1, false, "{\"a\": [1, 2], \"z\": \"x,y\"}");
        items.row("c:1", 7, false, "{\"name\": \"Zoë ü\"}");
        sums.put(Table.items, items.finish());
        Accumulator mappings = new Accumulator(Table.mappings);
        mappings.row("m1", 1, "colour\nline two", "color");
        mappings.row("m2", 3, "", "");
        sums.put(Table.mappings, mappings.finish());
        sums.put(Table.policies, new Accumulator(Table.policies).finish());
        Accumulator releases = new Accumulator(Table.releases);
        releases.row("r1", 1, "PUBLIC", "[{\"itemId\": \"b\", \"revision\": 1}]");
        sums.put(Table.releases, releases.finish());
        manifest = new ExportManifest("x", "acme", "shoes", 1, 9, ChainDigest.ZERO, Instant.parse("2026-01-02T03:04:05Z"),
                AcceptedStateChecksum.PROFILE, sums, objects);
    }

    @Test
    void intactExportVerifiesWithTheProfileChecksumOfItsRows() throws IOException {
        Map<Table, TableChecksum> sums = ExportObjectReader.verify(store, MANIFEST, manifest);
        assertThat(sums).isEqualTo(manifest.stateChecksum());
        List<String[]> rows = new ArrayList<>();
        ExportObjectReader.read(store, MANIFEST, manifest.object(Table.mappings), rows::add);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsExactly("m1", "1", "colour\nline two", "color");
    }

    @Test
    void recordsComeAsStoredWithTheSameChecksumsAndChecks() throws IOException {
        for (ExportTable t : ExportTable.values()) {
            List<String> records = new ArrayList<>();
            TableChecksum sum = ExportObjectReader.readRecords(store, MANIFEST, manifest.object(t),
                    (record, length) -> records.add(new String(record, 0, length, StandardCharsets.UTF_8)));
            if (t.profileTable().isPresent()) {
                assertThat(sum).as("%s", t).isEqualTo(manifest.stateChecksum().get(t.profileTable().get()));
            } else {
                assertThat(sum.rows()).isEqualTo(3);
            }
            String stored = CSV.get(t);
            assertThat(String.join("", records.stream().map(r -> r + "\n").toList()))
                    .isEqualTo(stored.substring(stored.indexOf('\n') + 1));
        }
        List<String> mappings = new ArrayList<>();
        ExportObjectReader.readRecords(store, MANIFEST, manifest.object(Table.mappings),
                (record, length) -> mappings.add(new String(record, 0, length, StandardCharsets.UTF_8)));
        assertThat(mappings).containsExactly("m1,1,\"colour\nline two\",color", "m2,3,\"\",\"\"");

        Path items = dir.resolve(ExportFormat.siblingKey(MANIFEST, "items.csv.gz"));
        byte[] bytes = Files.readAllBytes(items);
        bytes[bytes.length / 2] ^= 1;
        Files.write(items, bytes);
        assertThatThrownBy(() -> ExportObjectReader.readRecords(store, MANIFEST, manifest.object(Table.items),
                (record, length) -> { })).isInstanceOf(CorruptExportException.class);
    }

    @Test
    void manifestRoundTripsThroughJson() throws IOException {
        ExportManifest parsed = ExportManifest.parse(manifest.toJson());
        assertThat(parsed).isEqualTo(manifest);
        assertThat(new String(manifest.toJson(), StandardCharsets.UTF_8))
                .startsWith("{\"format\":\"resolver-export\",\"formatVersion\":1,\"exportId\":\"x\"");
        assertThatThrownBy(() -> ExportManifest.parse("{\"format\":\"other\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CorruptExportException.class);
    }

    @Test
    void aManifestOfAnotherVersionOrWithoutTheRevisionHistoryIsRefused() {
        String json = new String(manifest.toJson(), StandardCharsets.UTF_8);
        byte[] v2 = json.replace("\"formatVersion\":1", "\"formatVersion\":2").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ExportManifest.parse(v2)).isInstanceOf(CorruptExportException.class)
                .hasMessageContaining("formatVersion 2 is not supported (expected 1)");
        int revisions = json.indexOf(",{\"name\":\"revisions.csv.gz\"");
        String without = json.substring(0, revisions) + json.substring(json.indexOf('}', json.indexOf("]", revisions)) + 1);
        assertThatThrownBy(() -> ExportManifest.parse(without.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CorruptExportException.class).hasMessageContaining("no object for table revisions");
    }

    @Test
    void aFlippedByteIsDetected() throws IOException {
        Path items = dir.resolve(ExportFormat.siblingKey(MANIFEST, "items.csv.gz"));
        byte[] bytes = Files.readAllBytes(items);
        for (int at : new int[] {bytes.length / 2, bytes.length - 3, 12}) {
            byte[] damaged = bytes.clone();
            damaged[at] ^= 0x01;
            Files.write(items, damaged);
            assertThatThrownBy(() -> ExportObjectReader.verify(store, MANIFEST, manifest))
                    .as("flip at %d", at).isInstanceOf(CorruptExportException.class);
        }
    }

    @Test
    void aTruncatedOrExtendedObjectIsDetected() throws IOException {
        Path items = dir.resolve(ExportFormat.siblingKey(MANIFEST, "items.csv.gz"));
        byte[] bytes = Files.readAllBytes(items);
        Files.write(items, java.util.Arrays.copyOf(bytes, bytes.length - 5));
        assertThatThrownBy(() -> ExportObjectReader.verify(store, MANIFEST, manifest))
                .isInstanceOf(CorruptExportException.class);
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 4);
        Files.write(items, longer);
        assertThatThrownBy(() -> ExportObjectReader.verify(store, MANIFEST, manifest))
                .isInstanceOf(CorruptExportException.class).hasMessageContaining("bytes");
    }

    @Test
    void aValidObjectWithOtherContentIsDetectedByItsHash() throws IOException {
        // well-formed gzip CSV with the right row count, but one attribute changed: size or SHA-256 tell
        byte[] csv = CSV.get(ExportTable.items).replace("\"\"x,y\"\"", "\"\"x,z\"\"").getBytes(StandardCharsets.UTF_8);
        store.put(ExportFormat.siblingKey(MANIFEST, "items.csv.gz"), ExportFormat.OBJECT_CONTENT_TYPE,
                out -> gzip(out, csv));
        assertThatThrownBy(() -> ExportObjectReader.verify(store, MANIFEST, manifest))
                .isInstanceOf(CorruptExportException.class).hasMessageMatching(".*(SHA-256|bytes).*");
    }

    @Test
    void rowCountAndHeaderAreChecked() throws IOException {
        ManifestObject items = manifest.object(Table.items);
        ManifestObject oneRowMore = new ManifestObject(items.name(), items.table(), items.rows() + 1, items.bytes(),
                items.sha256(), items.contentType(), items.format(), items.compression(), items.columns());
        assertThatThrownBy(() -> ExportObjectReader.read(store, MANIFEST, oneRowMore, f -> { }))
                .isInstanceOf(CorruptExportException.class).hasMessageContaining("rows");
        byte[] csv = "id,revision,deleted,attributes\n".getBytes(StandardCharsets.UTF_8);
        store.put(ExportFormat.siblingKey(MANIFEST, "items.csv.gz"), ExportFormat.OBJECT_CONTENT_TYPE,
                out -> gzip(out, csv));
        assertThatThrownBy(() -> ExportObjectReader.read(store, MANIFEST, items, f -> { }))
                .isInstanceOf(CorruptExportException.class).hasMessageContaining("header");
    }

    @Test
    void csvRecordsParseOneAtATime() throws IOException {
        assertThat(CsvRecordReader.parseRecord("a,\"b,\"\"c\"\"\",,\"\"\n".getBytes(StandardCharsets.UTF_8)))
                .containsExactly("a", "b,\"c\"", "", "");
        assertThatThrownBy(() -> CsvRecordReader.parseRecord("a\nb\n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CorruptExportException.class);
        assertThatThrownBy(() -> CsvRecordReader.parseRecord("\"open\n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CorruptExportException.class);
    }

    private static void gzip(OutputStream out, byte[] bytes) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(buf)) {
            gz.write(bytes);
        }
        out.write(buf.toByteArray());
    }
}
