package com.acme.catalog.system.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The services' own metric names, as their main sources register them with Micrometer ({@code "resolver.writes"}),
 * so that a dashboard panel or a rule that queries a metric no service registers (a typo, a renamed meter) fails a
 * unit test rather than showing "no data" in an incident. Only the {@code resolver_*} and {@code product_*} names are
 * checked; JVM, HTTP and pool metrics are Spring Boot's.
 */
final class ServiceMetrics {

    private static final List<Path> SOURCES = List.of(Path.of("..", "resolver-service", "src", "main", "java"),
            Path.of("..", "product-service", "src", "main", "java"),
            Path.of("..", "shared-platform", "src", "main", "java"));
    private static final Pattern QUERIED = Pattern.compile("\\b((?:resolver|product)_[a-z0-9_]+)");
    private static final Pattern REGISTERED = Pattern.compile("\"((?:resolver|product)\\.[a-z0-9.]+)\"");
    /** What the Prometheus registry appends to a Micrometer name: a sample suffix, then a unit or counter suffix. */
    private static final List<String> SAMPLE_SUFFIXES = List.of("_bucket", "_count", "_sum", "_max", "");
    private static final List<String> NAME_SUFFIXES = List.of("_total", "_seconds", "");

    private ServiceMetrics() {
    }

    /** Every quoted {@code resolver.…}/{@code product.…} name in the services' main sources, in Prometheus form. */
    static Set<String> registered() {
        Set<String> names = new TreeSet<>();
        for (Path root : SOURCES) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Matcher m = REGISTERED.matcher(Files.readString(f));
                    while (m.find()) {
                        names.add(m.group(1).replace('.', '_'));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return names;
    }

    /** The service metrics a PromQL expression queries that no service registers. */
    static Set<String> unknown(String expr, Set<String> registered) {
        Set<String> unknown = new TreeSet<>();
        Matcher m = QUERIED.matcher(expr);
        while (m.find()) {
            if (!known(m.group(1), registered)) {
                unknown.add(m.group(1));
            }
        }
        return unknown;
    }

    private static boolean known(String queried, Set<String> registered) {
        for (String sample : SAMPLE_SUFFIXES) {
            if (!queried.endsWith(sample)) {
                continue;
            }
            String name = queried.substring(0, queried.length() - sample.length());
            for (String suffix : NAME_SUFFIXES) {
                if (name.endsWith(suffix) && registered.contains(name.substring(0, name.length() - suffix.length()))) {
                    return true;
                }
            }
        }
        return false;
    }
}
