package com.acme.catalog.testsupport.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The repository's files as the docs see them: every path (build output, the git directory and runtime directories
 * left out), the Java types declared in the sources (top-level and nested), the simple names of the library types the
 * sources import, and each Markdown page's anchors. Read once; the text of a file is read on demand.
 */
final class RepositoryTree {

    /** Never part of the tree a doc may name, at any depth: build output and tools' directories. */
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", "node_modules", ".idea");
    /** What the demo and the services make at the top when they run ({@code bin/demo.sh}'s logs, the file store). */
    private static final Set<String> RUNTIME_DIRECTORIES = Set.of("run", "data");
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "\\b(?:class|interface|record|enum|@interface)\\s+([A-Z][A-Za-z0-9_]*)");
    private static final Pattern NAME_LITERAL = Pattern.compile("\"([A-Z][A-Za-z0-9]+)\"");
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s*-?\\s*alert:\\s*(\\w+)");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?[\\w.]*?\\.([A-Z]\\w*)[\\w.]*;");

    private final Path root;
    private final Set<String> files = new TreeSet<>();
    private final Set<String> directories = new TreeSet<>();
    /** Simple type name to the Java files that declare it. */
    private final Map<String, Set<String>> types = new HashMap<>();
    private final Set<String> imported = new TreeSet<>();
    /** CamelCase names that are not types: wire names the sources spell as strings, alert names of deploy/. */
    private final Set<String> otherNames = new TreeSet<>();
    private final Map<String, Set<String>> anchors = new HashMap<>();

    private RepositoryTree(Path root) {
        this.root = root;
    }

    /** @param root the repository's top directory (the one with the parent {@code pom.xml}) */
    static RepositoryTree of(Path root) {
        RepositoryTree tree = new RepositoryTree(root.toAbsolutePath().normalize());
        tree.walk();
        return tree;
    }

    /** The repository root of a test that runs in one of its modules. */
    static Path rootFromModule() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("pom.xml")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("not the repository root: " + root);
        }
        return root;
    }

    private void walk() {
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(p -> !p.equals(root)).filter(this::inTree).forEach(p -> {
                String rel = relative(p);
                if (Files.isDirectory(p)) {
                    directories.add(rel);
                } else {
                    files.add(rel);
                    if (rel.endsWith(".java")) {
                        indexJava(rel);
                    } else if (rel.startsWith("deploy/") && rel.matches(".*\\.ya?ml")) {
                        Matcher alert = ALERT.matcher(text(rel).orElse(""));
                        while (alert.find()) {
                            otherNames.add(alert.group(1));
                        }
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean inTree(Path p) {
        Path rel = root.relativize(p);
        if (RUNTIME_DIRECTORIES.contains(rel.getName(0).toString())) {
            return false;
        }
        for (Path part : rel) {
            String name = part.toString();
            if (SKIPPED_DIRECTORIES.contains(name) || (name.startsWith(".") && !name.equals(".ci"))) {
                return false;
            }
        }
        return true;
    }

    private void indexJava(String rel) {
        String name = rel.substring(rel.lastIndexOf('/') + 1, rel.length() - ".java".length());
        types.computeIfAbsent(name, k -> new TreeSet<>()).add(rel);
        String source = text(rel).orElse("");
        Matcher m = TYPE_DECLARATION.matcher(source);
        while (m.find()) {
            types.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(rel);
        }
        Matcher literal = NAME_LITERAL.matcher(source);
        while (literal.find()) {
            otherNames.add(literal.group(1));
        }
        Matcher i = IMPORT.matcher(source);
        while (i.find()) {
            imported.add(i.group(1));
        }
    }

    private String relative(Path p) {
        return root.relativize(p).toString().replace('\\', '/');
    }

    Path root() {
        return root;
    }

    Set<String> files() {
        return files;
    }

    boolean isFile(String rel) {
        return files.contains(rel);
    }

    boolean isDirectory(String rel) {
        String d = rel.endsWith("/") ? rel.substring(0, rel.length() - 1) : rel;
        return d.isEmpty() || directories.contains(d);
    }

    /** @return whether some file's path ends with {@code /suffix} (or is {@code suffix}) */
    boolean hasFileEndingWith(String suffix) {
        return files.stream().anyMatch(f -> f.equals(suffix) || f.endsWith("/" + suffix));
    }

    /** @return whether some directory's path ends with {@code /suffix} (or is {@code suffix}) */
    boolean hasDirectoryEndingWith(String suffix) {
        String s = suffix.endsWith("/") ? suffix.substring(0, suffix.length() - 1) : suffix;
        return directories.stream().anyMatch(d -> d.equals(s) || d.endsWith("/" + s));
    }

    /** @return the Java files that declare a type of this simple name (as a file or nested); empty when none */
    Set<String> declaring(String simpleName) {
        return types.getOrDefault(simpleName, Set.of());
    }

    /** @return whether some Java source imports a type of this simple name (a library type the code uses) */
    boolean isImported(String simpleName) {
        return imported.contains(simpleName);
    }

    /**
     * @return whether a CamelCase name that no source declares is still a name of the system: a wire name the sources
     *         spell as a string ({@code "ItemUpserted"}) or a Prometheus alert of {@code deploy/}
     */
    boolean isOtherName(String name) {
        return otherNames.contains(name);
    }

    /** @return a file's text, or empty when it is not UTF-8 text */
    Optional<String> text(String rel) {
        try {
            return Optional.of(Files.readString(root.resolve(rel)));
        } catch (MalformedInputException binary) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the anchors GitHub gives the headings of a Markdown page of the tree */
    Set<String> anchors(String markdownFile) {
        return anchors.computeIfAbsent(markdownFile, f -> Markdown.anchors(text(f).orElse("")));
    }

    /** @return the sections' titles of a Markdown page of the tree: its headings and bold paragraph leads */
    List<String> sections(String markdownFile) {
        return Markdown.sections(text(markdownFile).orElse(""));
    }
}
