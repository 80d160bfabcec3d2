package com.acme.catalog.resolver.bootstrap;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

/**
 * The command line of the import mode: {@code --bootstrap-import FILE --tenant T --catalog C [--chunk-events N]
 * [--chunk-bytes B] [--max-event-bytes B] [--synchronous-commit-off] [--diagnose-failed-chunk]
 * [--unbatched-statements] [--reset REASON] [--wait-ready] [--epoch-above N]}. Values may follow as the next argument or after {@code =}. Any other
 * {@code --key=value} is handed to Spring (e.g. {@code --spring.datasource.url=…}).
 */
record BootstrapArguments(Path file, StreamId stream, ImportOptions options, boolean waitReady, String[] springArgs) {

    static final String USAGE = """
            java -jar resolver-service.jar --bootstrap-import FILE --tenant T --catalog C
                     [--chunk-events N (1-500, default 100)] [--chunk-bytes B (default 16777216)]
                     [--max-event-bytes B (default 1048576)] [--synchronous-commit-off]
                     [--diagnose-failed-chunk] [--unbatched-statements] [--reset REASON] [--wait-ready]
                     [--epoch-above N]
                     [--spring.property=value ...]""";

    /**
     * @throws IllegalArgumentException with a message for the operator when the arguments are not usable
     */
    static BootstrapArguments parse(String[] args) {
        String file = null;
        String tenant = null;
        String catalog = null;
        ImportOptions options = ImportOptions.defaults();
        boolean waitReady = false;
        List<String> spring = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            String inline = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : null;
            switch (name) {
                case "--synchronous-commit-off" -> options = options.withSynchronousCommitOff(flag(name, inline));
                case "--diagnose-failed-chunk" -> options = options.withDiagnoseFailedChunk(flag(name, inline));
                case "--unbatched-statements" -> options = options.withBatchedStatements(!flag(name, inline));
                case "--wait-ready" -> waitReady = flag(name, inline);
                case "--bootstrap-import", "--tenant", "--catalog", "--chunk-events", "--chunk-bytes",
                        "--max-event-bytes", "--reset", "--epoch-above" -> {
                    String value = inline;
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(name + " needs a value");
                        }
                        value = args[++i];
                    }
                    switch (name) {
                        case "--bootstrap-import" -> file = value;
                        case "--tenant" -> tenant = value;
                        case "--catalog" -> catalog = value;
                        case "--chunk-events" -> options = options.withChunkEvents((int) number(name, value));
                        case "--chunk-bytes" -> options = options.withChunkBytes(number(name, value));
                        case "--reset" -> options = options.withReset(value);
                        case "--epoch-above" -> options = options.withEpochAbove(number(name, value));
                        default -> options = options.withMaxEventBytes(number(name, value));
                    }
                }
                default -> {
                    if (!arg.startsWith("--") || inline == null) {
                        throw new IllegalArgumentException("unknown argument " + arg);
                    }
                    spring.add(arg);
                }
            }
        }
        if (file == null || file.isBlank()) {
            throw new IllegalArgumentException("--bootstrap-import FILE is required");
        }
        if (tenant == null || catalog == null) {
            throw new IllegalArgumentException("--tenant and --catalog are required");
        }
        return new BootstrapArguments(Path.of(file), new StreamId(tenant, catalog), options, waitReady,
                spring.toArray(String[]::new));
    }

    private static boolean flag(String name, String inline) {
        if (inline == null || inline.equals("true")) {
            return true;
        }
        if (inline.equals("false")) {
            return false;
        }
        throw new IllegalArgumentException(name + " takes no value (or =true / =false)");
    }

    private static long number(String name, String value) {
        try {
            long n = Long.parseLong(value);
            if (n > Integer.MAX_VALUE && name.equals("--chunk-events")) {
                throw new IllegalArgumentException(name + " must be 1-" + ImportOptions.MAX_CHUNK_EVENTS);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got " + value);
        }
    }
}
