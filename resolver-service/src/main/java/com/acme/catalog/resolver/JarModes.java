package com.acme.catalog.resolver;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.acme.catalog.resolver.bootstrap.BootstrapCommand;
import com.acme.catalog.resolver.convert.ConvertCommand;

/**
 * The modes of the resolver jar and which one its arguments ask for. Everything here runs before, and without, Spring:
 * {@code --help} and {@code --convert-snapshot} never start an application context or open a database connection;
 * {@code --bootstrap-import} starts one without a web server; no mode flag starts the service.
 */
final class JarModes {

    /** A mode of the jar, by the flag that selects it (the service has none). */
    enum Mode {
        SERVICE(null, """
                java -jar resolver-service.jar [--spring.property=value ...]
                  the resolver service: REST API on SERVER_PORT (8081). Settings: SPRING_DATASOURCE_URL,
                  CONTROL_DATASOURCE_URL, OBJECT_STORE_URI, SECURITY_TOKENS, RELAY_TOKEN, ... (README.md
                  "Configuration", docs/configuration.md)."""),
        BOOTSTRAP_IMPORT(BootstrapCommand.FLAG, BootstrapCommand.USAGE + "\n  imports a snapshot-derived "
                + "events.json into an empty stream with the service's database settings, no web server\n  "
                + "(docs/bootstrap-import.md)."),
        CONVERT_SNAPSHOT(ConvertCommand.FLAG, ConvertCommand.USAGE + "\n  starts no service and opens no database "
                + "(docs/bootstrap-import.md \"Converting a snapshot\")."),
        HELP("--help", """
                java -jar resolver-service.jar --help   (or -h)
                  this text; starts nothing. With a mode's flag: that mode's usage only.""");

        private final String flag;
        private final String usage;

        Mode(String flag, String usage) {
            this.flag = flag;
            this.usage = usage;
        }

        /** @return the flag that selects the mode; null for the service */
        String flag() {
            return flag;
        }

        String usage() {
            return usage;
        }
    }

    static final int EXIT_OK = 0;
    static final int EXIT_USAGE = 2;

    private JarModes() {
    }

    /**
     * Runs the command-line mode the arguments ask for.
     *
     * @return the process exit code, or null when the arguments ask for the service
     */
    static Integer run(String[] args, PrintStream out, PrintStream err) {
        List<Mode> modes = requested(args);
        boolean help = Arrays.stream(args).anyMatch(a -> a.equals("--help") || a.equals("-h"));
        if (help) {
            out.println(modes.isEmpty() ? help() : modes.get(0).usage());
            return EXIT_OK;
        }
        if (modes.size() > 1) {
            err.println("resolver-service.jar: choose one mode, not " + modes.stream().map(Mode::flag).toList());
            err.println(help());
            return EXIT_USAGE;
        }
        if (modes.isEmpty()) {
            return null;
        }
        return switch (modes.get(0)) {
            case BOOTSTRAP_IMPORT -> BootstrapCommand.run(ResolverApplication.class, args);
            case CONVERT_SNAPSHOT -> ConvertCommand.run(args, out, err);
            default -> throw new IllegalStateException(modes.get(0).name());
        };
    }

    /** The command-line modes named in {@code args}, in the order of {@link Mode}. */
    static List<Mode> requested(String[] args) {
        List<Mode> modes = new ArrayList<>();
        if (BootstrapCommand.requested(args)) {
            modes.add(Mode.BOOTSTRAP_IMPORT);
        }
        if (ConvertCommand.requested(args)) {
            modes.add(Mode.CONVERT_SNAPSHOT);
        }
        return modes;
    }

    /** Every mode of the jar with its usage. */
    static String help() {
        StringBuilder b = new StringBuilder("resolver-service.jar: the resolver service and its command-line modes\n");
        for (Mode m : Mode.values()) {
            b.append('\n').append(m.usage()).append('\n');
        }
        return b.toString();
    }
}
