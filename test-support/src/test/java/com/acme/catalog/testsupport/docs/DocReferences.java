package com.acme.catalog.testsupport.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.acme.catalog.testsupport.docs.Markdown.Line;
import com.acme.catalog.testsupport.docs.Markdown.Span;

/**
 * What a Markdown page names that must exist in the repository, and which of those do not. The rules:
 *
 * <ol>
 * <li><b>Links.</b> An inline link's target that is not a URL is a file or directory relative to the page; its
 * {@code #anchor} (or a bare {@code #anchor}, on the page itself) is one of the target page's heading anchors as
 * GitHub computes them.</li>
 * <li><b>Types.</b> A code span that is a Java name — {@code Foo}, {@code Foo.member}, {@code Foo#method},
 * {@code Foo.method(…)}, {@code pkg/Foo}, {@code platform.sql.BoundSql}, {@code @Foo} — names a type: one whose
 * name ends in {@code IT} or {@code Test} must be a {@code .java} file of the tree; any other CamelCase name must be
 * declared in the tree (a file or a nested type), be a library type some source imports, or be a name of the system
 * that is no type: a wire name the sources spell as a string ({@code "ItemUpserted"}) or a Prometheus alert of
 * {@code deploy/}. A member after one of our types must occur in a file that declares it; a package before it
 * ({@code lease/}, {@code platform.sql.}) must be the directory of a file that declares it. A dotted package name of
 * our own ({@code contracts.export}, {@code platform.web}) must be a package directory. A single capitalised word
 * ({@code Checker}) and constants ({@code READY}) are not told apart from prose and not checked.</li>
 * <li><b>Paths.</b> A code span with a slash and a file extension ({@code docs/runbooks/restore.md},
 * {@code db/resolver/V27__idempotency_keys.sql}) is a file: relative to the repository root, to the page, or the end
 * of a file's path. A code span whose first segment is a top-level directory ({@code db/resolver},
 * {@code resolver-service/Dockerfile}) is a file or a directory. A {@code name.md} or {@code Name.java} span is a file
 * too. Build output ({@code target/}), runtime directories
 * ({@code run/}, {@code data/}) and placeholders ({@code <id>}, {@code {t}}, {@code …}, {@code *}) are not checked.</li>
 * <li><b>Anywhere in the text</b>, fenced code included: a script {@code bin/*.sh} or {@code .ci/*} is a file; a
 * {@code page.md#anchor} is an anchor of that page; {@code -Dit.test=} and {@code -Dtest=} name test classes; a
 * {@code page.md "Section"} names a section of that page: a heading or a paragraph led by bold text that contains
 * the quoted words, ignoring case.</li>
 * </ol>
 */
final class DocReferences {

    private static final Pattern SCRIPT = Pattern.compile("(?<![\\w./-])((?:bin/[\\w.-]+\\.sh)|(?:\\.ci/[\\w-]+))");
    private static final Pattern PAGE_ANCHOR = Pattern.compile("(?<![\\w./-])([\\w./-]*\\.md)#([\\w-]+)");
    private static final Pattern PAGE_SECTION = Pattern.compile("(?<![\\w./-])([\\w./-]*\\.md)`?,? \"([^\"]+)\"");
    private static final Pattern TEST_PROPERTY = Pattern.compile("-D(?:it\\.)?test=([\\w,#*!.$-]+)");
    private static final Pattern JAVA_NAME = Pattern.compile(
            "((?:[a-z][a-z0-9]*[./])*)([A-Z][A-Za-z0-9_]*)((?:[.#][A-Za-z_][A-Za-z0-9_]*)*)");
    /** A name that ends like a file of the tree is a path, not a type and its member. */
    private static final Pattern FILE_EXTENSION = Pattern.compile(
            ".*\\.(md|java|sh|ya?ml|sql|json|jsonl|xml|txt|properties|conf|html|jar|gz|csv|py|toml)");
    private static final Pattern OUR_PACKAGE = Pattern.compile("(contracts|platform)(\\.[a-z][a-z0-9]*)+");
    private static final Pattern PATH = Pattern.compile("[\\w.-]+(/[\\w.-]+)*/?");
    private static final Pattern EXTENSION = Pattern.compile(".*/[^/]*\\.[a-z][a-z0-9]{0,4}");
    private static final Set<String> UNCHECKED_SEGMENTS = Set.of("target", "run", "data");
    /** Test names the build's own commands use for "run no unit test". */
    private static final Set<String> NO_TEST = Set.of("none", "NoSuchTest");

    private final RepositoryTree tree;

    DocReferences(RepositoryTree tree) {
        this.tree = tree;
    }

    private static final Pattern DOCS_PAGE = Pattern.compile("(?<![\\w./-])(docs/[\\w./-]+\\.md)");

    /**
     * The references of a source, configuration or script file to the docs: every {@code docs/….md} it names is a
     * page, and the rules for any text apply (anchors, quoted sections, scripts, test names).
     *
     * @return one line per reference that does not exist, {@code file:line: what}
     */
    List<String> brokenInCode(String file, String text) {
        Set<String> out = new LinkedHashSet<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String where = file + ":" + (i + 1) + ": ";
            Matcher page = DOCS_PAGE.matcher(lines[i]);
            while (page.find()) {
                if (!tree.isFile(page.group(1))) {
                    out.add(where + "page " + page.group(1) + " does not exist");
                }
            }
            anywhere(lines[i], "", where, out);
        }
        return new ArrayList<>(out);
    }

    /** @return one line per reference of the page that does not exist, {@code page:line: what} */
    List<String> broken(String page) {
        return broken(page, tree.text(page).orElseThrow());
    }

    /** @return the broken references of {@code text}, read as the page {@code page} of the tree */
    List<String> broken(String page, String text) {
        Set<String> out = new LinkedHashSet<>();
        String dir = page.contains("/") ? page.substring(0, page.lastIndexOf('/') + 1) : "";
        Set<String> ownAnchors = Markdown.anchors(text);
        for (Line line : Markdown.lines(text)) {
            String where = page + ":" + line.number() + ": ";
            anywhere(line.text(), dir, where, out);
            if (line.fenced()) {
                continue;
            }
            for (String target : Markdown.linkTargets(line.text())) {
                link(target, dir, ownAnchors, where, out);
            }
            for (Span span : Markdown.codeSpans(line.text())) {
                codeSpan(span.text(), dir, where, out);
            }
        }
        return new ArrayList<>(out);
    }

    private void anywhere(String text, String dir, String where, Set<String> out) {
        Matcher script = SCRIPT.matcher(text);
        while (script.find()) {
            if (!tree.isFile(script.group(1))) {
                out.add(where + "script " + script.group(1) + " does not exist");
            }
        }
        Matcher anchor = PAGE_ANCHOR.matcher(Markdown.withoutLinkTargets(text));
        while (anchor.find()) {
            pageAnchor(anchor.group(1), anchor.group(2), dir, where, out);
        }
        Matcher section = PAGE_SECTION.matcher(text);
        while (section.find()) {
            resolvePage(section.group(1), dir).ifPresentOrElse(p -> {
                String wanted = section.group(2).toLowerCase(Locale.ROOT);
                if (tree.sections(p).stream().map(h -> Markdown.plain(h).toLowerCase(Locale.ROOT))
                        .noneMatch(h -> h.contains(wanted))) {
                    out.add(where + p + " has no section \"" + section.group(2) + "\"");
                }
            }, () -> out.add(where + "page " + section.group(1) + " does not exist"));
        }
        Matcher tests = TEST_PROPERTY.matcher(text);
        while (tests.find()) {
            for (String name : tests.group(1).split(",")) {
                String type = name.contains("#") ? name.substring(0, name.indexOf('#')) : name;
                if (!NO_TEST.contains(type) && type.matches("[A-Z]\\w*") && !isJavaFile(type)) {
                    out.add(where + "test " + type + " (in " + tests.group() + ") names no .java file");
                }
            }
        }
    }

    private void link(String target, String dir, Set<String> ownAnchors, String where, Set<String> out) {
        if (target.matches("[a-z][a-z0-9+.-]*:.*")) {
            return; // a URL
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        if (path.isEmpty()) {
            if (anchor != null && !ownAnchors.contains(anchor)) {
                out.add(where + "#" + anchor + " is no heading of this page");
            }
            return;
        }
        String resolved = normalize(dir + path);
        if (resolved == null || !(tree.isFile(resolved) || tree.isDirectory(resolved))) {
            out.add(where + "link " + target + " leads to nothing");
        } else if (anchor != null && resolved.endsWith(".md") && !tree.anchors(resolved).contains(anchor)) {
            out.add(where + "link " + target + ": " + resolved + " has no heading #" + anchor);
        }
    }

    private void pageAnchor(String page, String anchor, String dir, String where, Set<String> out) {
        Optional<String> p = resolvePage(page, dir);
        if (p.isEmpty()) {
            out.add(where + "page " + page + " does not exist");
        } else if (!tree.anchors(p.get()).contains(anchor)) {
            out.add(where + p.get() + " has no heading #" + anchor);
        }
    }

    /** A page named in the text: relative to the page, to the root, or (a docs page) by its name alone. */
    private Optional<String> resolvePage(String page, String dir) {
        for (String candidate : new String[] {dir + page, page, "docs/" + page}) {
            String n = normalize(candidate);
            if (n != null && tree.isFile(n)) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    private void codeSpan(String raw, String dir, String where, Set<String> out) {
        String span = raw.startsWith("@") ? raw.substring(1) : raw; // an annotation names its type
        if (span.matches("[\\w./#]+\\(.*\\)")) {
            span = span.substring(0, span.indexOf('(')); // a call: its arguments are prose
        }
        if (span.matches(".*[\\s<>{}…*$%@=:'\"\\[\\]()#].*|.*\\.\\.\\..*") && !span.matches("[A-Z]\\w*#\\w+")) {
            return; // a command, a URL, a placeholder, a pattern or page.md#anchor: only the rules for any text apply
        }
        Matcher java = JAVA_NAME.matcher(span);
        if (java.matches() && !FILE_EXTENSION.matcher(span).matches()) {
            javaName(span, java.group(1), java.group(2), java.group(3), where, out);
            return;
        }
        if (OUR_PACKAGE.matcher(span).matches()) {
            if (!tree.hasDirectoryEndingWith("com/acme/catalog/" + span.replace('.', '/'))) {
                out.add(where + "package " + span + " does not exist");
            }
            return;
        }
        if (PATH.matcher(span).matches()) {
            path(span, dir, where, out);
        }
    }

    private void javaName(String span, String qualifier, String type, String members, String where,
            Set<String> out) {
        boolean testName = type.matches("[A-Z]\\w*[a-z0-9](IT|Test)");
        boolean camel = type.matches("[A-Z][a-z][a-z0-9]*[A-Z][A-Za-z0-9_]*") || testName;
        if (!camel) {
            return; // a single capitalised word or a constant: not told apart from prose
        }
        Set<String> declaring = tree.declaring(type);
        if (testName && !isJavaFile(type)) {
            out.add(where + "`" + span + "`: " + type + " names no .java file");
            return;
        }
        if (declaring.isEmpty()) {
            boolean known = qualifier.isEmpty() && (tree.isImported(type) || members.isEmpty() && tree.isOtherName(type));
            if (!known) {
                out.add(where + "`" + span + "`: no type " + type + " is declared in the repository"
                        + (qualifier.isEmpty() ? ", imported by its sources or named as a wire name or alert" : ""));
            }
            return;
        }
        if (!qualifier.isEmpty()) {
            String packagePath = qualifier.replace('.', '/');
            if (declaring.stream().noneMatch(f -> f.contains("/" + packagePath))) {
                out.add(where + "`" + span + "`: " + type + " is not in a package " + packagePath
                        + " (declared in " + declaring + ")");
            }
        }
        if (!members.isEmpty()) {
            String member = members.substring(1).split("[.#]")[0];
            Pattern word = Pattern.compile("\\b" + Pattern.quote(member) + "\\b");
            if (declaring.stream().map(f -> tree.text(f).orElse("")).noneMatch(s -> word.matcher(s).find())) {
                out.add(where + "`" + span + "`: " + member + " does not occur in " + declaring);
            }
        }
    }

    private void path(String span, String dir, String where, Set<String> out) {
        String p = span.startsWith("./") ? span.substring(2) : span;
        for (String segment : p.split("/")) {
            if (UNCHECKED_SEGMENTS.contains(segment)) {
                return;
            }
        }
        boolean file = EXTENSION.matcher(p).matches() || p.matches("[\\w.-]+\\.md") || p.matches("[A-Z]\\w*\\.java");
        if (file) {
            String inPage = normalize(dir + p);
            if (!(tree.isFile(p) || inPage != null && tree.isFile(inPage) || tree.hasFileEndingWith(p))) {
                out.add(where + "`" + span + "`: no such file");
            }
            return;
        }
        if (p.contains("/") && tree.isDirectory(p.split("/")[0])) {
            // under a top-level directory: a file without extension (a Dockerfile, a script) or a directory
            String inPage = normalize(dir + p);
            boolean found = tree.isFile(p) || tree.isDirectory(p) || tree.hasFileEndingWith(p)
                    || tree.hasDirectoryEndingWith(p) || inPage != null && tree.isDirectory(inPage);
            if (!found) {
                out.add(where + "`" + span + "`: no such file or directory");
            }
        }
    }

    private boolean isJavaFile(String type) {
        return tree.hasFileEndingWith(type + ".java");
    }

    /** {@code a/b/../c} as {@code a/c}; null when it leaves the root. */
    private static String normalize(String path) {
        List<String> parts = new ArrayList<>();
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (parts.isEmpty()) {
                    return null;
                }
                parts.remove(parts.size() - 1);
            } else {
                parts.add(part);
            }
        }
        String joined = String.join("/", parts);
        return path.endsWith("/") && !joined.isEmpty() ? joined + "/" : joined;
    }
}
