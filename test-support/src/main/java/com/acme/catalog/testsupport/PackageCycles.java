package com.acme.catalog.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package graph of a service's main sources, for a test that fails when packages depend on each other in a
 * cycle (the equivalent of an ArchUnit "free of cycles" rule, without the dependency). A top-level package of the
 * service (e.g. {@code inbox}) depends on another when any of its files names a class of the other by its qualified
 * name (an import, or a qualified reference in code or Javadoc).
 */
public final class PackageCycles {

    private PackageCycles() {
    }

    /**
     * @param sourceRoot  the directory of {@code basePackage} (e.g. {@code src/main/java/com/acme/catalog/product})
     * @param basePackage the service's base package (e.g. {@code com.acme.catalog.product})
     * @return one line per package cycle, naming each edge of it with the classes that make it; empty when there is
     *         none
     */
    public static List<String> cycles(Path sourceRoot, String basePackage) {
        Map<String, Map<String, Set<String>>> edges = edges(sourceRoot, basePackage);
        List<String> out = new ArrayList<>();
        for (Set<String> component : stronglyConnected(edges)) {
            StringBuilder b = new StringBuilder("cycle among " + component + ":");
            for (String from : component) {
                edges.getOrDefault(from, Map.of()).forEach((to, why) -> {
                    if (component.contains(to)) {
                        b.append("\n  ").append(from).append(" -> ").append(to).append(" (").append(why).append(')');
                    }
                });
            }
            out.add(b.toString());
        }
        return out;
    }

    /** from package -> to package -> the "File -> Class" references that make the edge. */
    static Map<String, Map<String, Set<String>>> edges(Path sourceRoot, String basePackage) {
        Pattern reference = Pattern.compile(Pattern.quote(basePackage) + "\\.([a-z][a-z0-9]*)\\.([A-Z]\\w*)");
        Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Path relative = sourceRoot.relativize(file);
                if (relative.getNameCount() < 2) {
                    continue; // the base package itself (the application class) may name any package
                }
                String from = relative.getName(0).toString();
                Matcher m = reference.matcher(Files.readString(file));
                while (m.find()) {
                    if (!m.group(1).equals(from)) {
                        edges.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(m.group(1),
                                k -> new TreeSet<>()).add(file.getFileName().toString().replace(".java", "")
                                + " -> " + m.group(2));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return edges;
    }

    /** Tarjan's strongly connected components of more than one package. */
    private static List<Set<String>> stronglyConnected(Map<String, Map<String, Set<String>>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : edges.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, edges, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Map<String, Set<String>>> edges, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : edges.getOrDefault(v, Map.of()).keySet()) {
            if (!index.containsKey(w)) {
                connect(w, edges, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                out.add(component);
            }
        }
    }
}
