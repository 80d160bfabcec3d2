package com.acme.catalog.resolver.convert;

import java.nio.file.Path;

/**
 * The command line of {@code --convert-snapshot} ({@link ConvertCommand#USAGE}); values follow as the next argument
 * or after {@code =}.
 */
record ConvertArguments(String source, Path output, Long seed, String format, String objectStore) {

    /**
     * @throws IllegalArgumentException with a message for the operator when the arguments are not usable
     */
    static ConvertArguments parse(String[] args) {
        String source = null;
        String output = null;
        Long seed = null;
        String format = null;
        String store = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : null;
            if (!name.equals(ConvertCommand.FLAG) && !name.equals("--output") && !name.equals("--seed")
                    && !name.equals("--format") && !name.equals("--object-store")) {
                throw new IllegalArgumentException("unknown argument " + arg);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case ConvertCommand.FLAG -> source = value;
                case "--output" -> output = value;
                case "--seed" -> seed = seed(value);
                case "--format" -> format = format(value);
                default -> store = value;
            }
        }
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException(ConvertCommand.FLAG + " SOURCE is required");
        }
        if (output == null || output.isBlank()) {
            throw new IllegalArgumentException("--output FILE is required");
        }
        if (store != null && "tables".equals(format)) {
            throw new IllegalArgumentException("--object-store holds exports only, not per-table snapshots");
        }
        return new ConvertArguments(source, Path.of(output), seed, format, store);
    }

    private static Long seed(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--seed must be a whole number, got " + value);
        }
    }

    private static String format(String value) {
        if (!value.equals("export") && !value.equals("tables")) {
            throw new IllegalArgumentException("--format must be export or tables, got " + value);
        }
        return value;
    }
}
