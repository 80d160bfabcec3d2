package com.acme.catalog.resolver.bootstrap;

import java.util.Arrays;
import java.util.stream.Stream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.ObjectMapper;

/**
 * The command-line import mode of the resolver jar: starts the application without a web server, runs one import,
 * prints progress on stderr and one JSON summary line on stdout, and returns the exit code: 0 completed,
 * 1 failed (a partial import may be committed, see the summary), 2 usage error, 3 file rejected (nothing
 * written), 4 destination refused: not empty or another import running (nothing written), 5 imported but not served
 * ({@code --wait-ready}: the product did not serve it with equal checksums within the wait).
 */
public final class BootstrapCommand {

    public static final String FLAG = "--bootstrap-import";
    /** The mode's command line, for {@code --help}. */
    public static final String USAGE = BootstrapArguments.USAGE;

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_REJECTED = 3;
    static final int EXIT_REFUSED = 4;
    static final int EXIT_NOT_READY = 5;

    private BootstrapCommand() {
    }

    /** True when the arguments ask for the import mode instead of the server. */
    public static boolean requested(String[] args) {
        for (String a : args) {
            if (a.equals(FLAG) || a.startsWith(FLAG + "=")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs the import mode. Everything except the summary (Spring's own logging included) goes to stderr, so
     * stdout stays machine-readable.
     *
     * @return the process exit code
     */
    public static int run(Class<?> application, String[] args) {
        PrintStream stdout = System.out;
        System.setOut(System.err);
        try {
            return run(application, args, stdout, System.err);
        } finally {
            System.setOut(stdout);
        }
    }

    static int run(Class<?> application, String[] args, PrintStream out, PrintStream err) {
        BootstrapArguments a;
        try {
            a = BootstrapArguments.parse(args);
            if (!Files.isReadable(a.file())) {
                throw new IllegalArgumentException("cannot read " + a.file());
            }
        } catch (IllegalArgumentException e) {
            err.println("bootstrap-import: " + e.getMessage());
            err.println("usage: " + BootstrapArguments.USAGE);
            return EXIT_USAGE;
        }
        SpringApplicationBuilder builder = new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "logging.level.root=WARN");
        // an import process relays and prunes nothing, the service instances do; command-line arguments outrank
        // application.yml, default properties do not
        String[] springArgs = Stream.concat(Arrays.stream(a.springArgs()), Stream.of("--relay.enabled=false",
                "--retention.prune.enabled=false", "--retention.status.enabled=false")).toArray(String[]::new);
        try (ConfigurableApplicationContext context = builder.run(springArgs)) {
            BootstrapImporter importer = context.getBean(BootstrapImporter.class);
            ProductReadiness readiness = context.getBean(ProductReadiness.class);
            ObjectMapper json = context.getBean(ObjectMapper.class);
            err.printf("[bootstrap-import] %s into %s, chunks of <= %d events / %d bytes%n", a.file(), a.stream(),
                    a.options().chunkEvents(), a.options().chunkBytes());
            try {
                if (a.waitReady()) {
                    readiness.requireConfigured();
                }
                ImportReport report = importer.importFile(a.stream(), a.file(), a.options(), new ProgressLine(err),
                        "command-line");
                if (a.waitReady()) {
                    err.printf("[bootstrap-import] committed; waiting until the product serves it%n");
                    readiness.verify(a.stream(), report);
                    err.printf("[bootstrap-import] served by the product with equal checksums after %.1f s%n",
                            report.summary().readyMs() / 1000);
                }
                out.println(json.writeValueAsString(report.summary()));
                err.printf("[bootstrap-import] completed: %d events, %d commits%n", report.committedEvents(),
                        report.commits());
                return EXIT_OK;
            } catch (RejectedEventException e) {
                Map<String, Object> m = problem("REJECTED", e);
                m.put("index", e.index());
                m.put("eventId", e.eventId());
                out.println(json.writeValueAsString(m));
                err.println("[bootstrap-import] file rejected, nothing written: " + e.getMessage());
                return EXIT_REJECTED;
            } catch (ImportFailedException e) {
                ImportSummary summary = e.report().summary();
                out.println(json.writeValueAsString(summary));
                err.println("[bootstrap-import] FAILED: " + e.getMessage());
                if (summary.failure() != null) {
                    err.println("[bootstrap-import] " + summary.failure().action());
                }
                return EXIT_FAILED;
            } catch (ProductNotReadyException e) {
                out.println(json.writeValueAsString(e.report().summary()));
                err.println("[bootstrap-import] NOT READY: " + e.getMessage());
                return EXIT_NOT_READY;
            } catch (ApiException e) {
                out.println(json.writeValueAsString(problem("REFUSED", e)));
                err.println("[bootstrap-import] refused, nothing written: " + e.getMessage());
                return EXIT_REFUSED;
            }
        } catch (RuntimeException e) {
            err.println("[bootstrap-import] FAILED: " + e);
            return EXIT_FAILED;
        }
    }

    private static Map<String, Object> problem(String status, ApiException e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status);
        m.put("code", e.code().name());
        m.put("detail", e.getMessage());
        return m;
    }

    /** One progress line on stderr at most every second, and one per phase. */
    private static final class ProgressLine implements ImportListener {
        private final PrintStream err;
        private final long started = System.nanoTime();
        private long lastPrinted;

        ProgressLine(PrintStream err) {
            this.err = err;
        }

        @Override
        public void destinationChecked() {
            err.println("[bootstrap-import] import lock held, destination empty; validating");
        }

        @Override
        public void validated(int events) {
            err.printf("[bootstrap-import] %d events valid after %.1f s%n", events, seconds());
        }

        @Override
        public void fenced() {
            err.printf("[bootstrap-import] import fence held (writes of the stream refused, relay holding it); "
                    + "writing%n");
        }

        @Override
        public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
            long now = System.nanoTime();
            if (now - lastPrinted < 1_000_000_000L && committedEvents < totalEvents) {
                return;
            }
            lastPrinted = now;
            err.printf("[bootstrap-import] chunk %d: %d/%d events (%d%%), %.1f s%n", chunk, committedEvents,
                    totalEvents, committedEvents * 100 / Math.max(1, totalEvents), seconds());
        }

        private double seconds() {
            return (System.nanoTime() - started) / 1e9;
        }
    }
}
