package com.acme.catalog.resolver.convert;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.platform.objectstore.ObjectStores;

import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code --convert-snapshot} mode of the resolver jar: converts without Spring and without a database, prints
 * progress on stderr and one JSON line on stdout (the {@link ConversionSummary}, or {@code {"status":"REJECTED",…}}),
 * and returns the exit code: 0 converted, 1 failed (I/O), 2 usage error, 3 snapshot rejected (no output written).
 */
public final class ConvertCommand {

    public static final String FLAG = "--convert-snapshot";

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_REJECTED = 3;

    public static final String USAGE = """
            java -jar resolver-service.jar --convert-snapshot SOURCE --output FILE [--seed N]
                     [--format export|tables] [--object-store URI]
              SOURCE: an export's manifest.json (or the folder holding it), or a folder of per-table
              JSON Lines files (items.jsonl, mappings.jsonl, policies.jsonl, releases.jsonl,
              release_items.jsonl); with --object-store (e.g. s3://bucket/prefix, settings as the
              service's OBJECT_STORE_S3_ENDPOINT, AWS_REGION), SOURCE is the manifest's key there.
              Writes events.json for --bootstrap-import; --seed N makes the new event ids reproducible.""";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ConvertCommand() {
    }

    /** True when the arguments ask for this mode. */
    public static boolean requested(String[] args) {
        for (String a : args) {
            if (a.equals(FLAG) || a.startsWith(FLAG + "=")) {
                return true;
            }
        }
        return false;
    }

    /** @return the process exit code */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ConvertArguments a;
        try {
            a = ConvertArguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("convert-snapshot: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }
        try {
            ConversionSummary summary = convert(a, err);
            out.println(JSON.writeValueAsString(summary));
            err.printf("[convert-snapshot] %d events written to %s in %.1f s%n", summary.events(), summary.output(),
                    summary.timings().totalMs() / 1000);
            if (summary.events() == 0) {
                err.println("[convert-snapshot] the snapshot holds no accepted state: the output is an empty array, "
                        + "which the bootstrap import refuses");
            }
            return EXIT_OK;
        } catch (SnapshotRejectedException e) {
            out.println(JSON.writeValueAsString(java.util.Map.of("status", "REJECTED", "detail", e.getMessage())));
            err.println("[convert-snapshot] rejected, nothing written: " + e.getMessage());
            return EXIT_REJECTED;
        } catch (IOException | RuntimeException e) {
            err.println("[convert-snapshot] FAILED, nothing written: " + e);
            return EXIT_FAILED;
        }
    }

    private static ConversionSummary convert(ConvertArguments a, PrintStream err) throws IOException {
        if (a.objectStore() != null) {
            err.printf("[convert-snapshot] export %s in %s -> %s%n", a.source(), a.objectStore(), a.output());
            ObjectStore store = ObjectStores.fromUri(a.objectStore(), System.getenv("OBJECT_STORE_S3_ENDPOINT"),
                    System.getenv("AWS_REGION"), pathStyle());
            try {
                return SnapshotConverter.convertExport(store, a.source(), a.output(), a.seed());
            } finally {
                if (store instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        err.println("[convert-snapshot] closing the object store: " + e.getMessage());
                    }
                }
            }
        }
        Path source = Path.of(a.source());
        String format = a.format() != null ? a.format() : detect(source);
        if (format.equals("tables")) {
            err.printf("[convert-snapshot] per-table snapshot %s -> %s%n", source, a.output());
            return SnapshotConverter.convertTables(source, a.output(), a.seed());
        }
        Path manifest = Files.isDirectory(source) ? source.resolve("manifest.json") : source;
        if (!Files.isRegularFile(manifest)) {
            throw new SnapshotRejectedException("no export manifest at " + manifest);
        }
        err.printf("[convert-snapshot] export %s -> %s%n", manifest, a.output());
        Path folder = manifest.toAbsolutePath().getParent();
        return SnapshotConverter.convertExport(new com.acme.catalog.platform.objectstore.FileSystemObjectStore(
                folder), manifest.getFileName().toString(), a.output(), a.seed());
    }

    /** A manifest file or a folder with one is an export; any other folder a per-table snapshot. */
    private static String detect(Path source) {
        if (Files.isRegularFile(source) || Files.isRegularFile(source.resolve("manifest.json"))) {
            return "export";
        }
        if (Files.isDirectory(source)) {
            return "tables";
        }
        throw new SnapshotRejectedException("cannot read " + source);
    }

    private static Boolean pathStyle() {
        String v = System.getenv("OBJECT_STORE_PATH_STYLE");
        return v == null || v.isBlank() ? null : Boolean.valueOf(v.strip());
    }
}
