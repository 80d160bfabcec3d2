package com.acme.catalog.testsupport.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README and the pages of {@code docs/} (runbooks included) name only classes, tests, files, scripts and
 * sections that exist, by the rules of {@link DocReferences}. A renamed class, a deleted test or a moved heading
 * fails this test until the page says what is true again.
 *
 * <p>Not checked: {@code docs/benchmarks-archive.md} and {@code docs/bench-runs/}, the record of past runs: they name
 * the commits, branches and classes of their day, and rewriting them would falsify the record.
 */
class DocReferencesTest {

    /** Historical records, kept as they were written. */
    static final Set<String> HISTORICAL = Set.of("docs/benchmarks-archive.md");

    static final RepositoryTree TREE = RepositoryTree.of(RepositoryTree.rootFromModule());

    /** The pages this test keeps true: the README, every page of docs/ and of docs/runbooks/. */
    static List<String> pages() {
        return TREE.files().stream()
                .filter(f -> f.equals("README.md") || f.matches("docs/[^/]+\\.md") || f.matches("docs/runbooks/[^/]+\\.md"))
                .filter(f -> !HISTORICAL.contains(f))
                .toList();
    }

    @Test
    void everyPageNamesOnlyWhatExists() {
        DocReferences references = new DocReferences(TREE);
        List<String> pages = pages();
        assertThat(pages).contains("README.md", "docs/design.md", "docs/architecture.md", "docs/runbooks/restore.md");

        assertThat(pages.stream().flatMap(p -> references.broken(p).stream()).toList())
                .as("references to things that do not exist").isEmpty();
    }

    /**
     * Code comments, configuration and scripts name only docs pages, sections and anchors that exist: a comment's
     * {@code docs/epochs.md "The product"} is a promise to a reader. The rules' own sources (this package, which plants
 * broken references on purpose) are left out.
     */
    @Test
    void codeNamesOnlyDocsThatExist() {
        DocReferences references = new DocReferences(TREE);
        List<String> files = TREE.files().stream().filter(IssueReferencesTest::scanned)
                .filter(f -> !f.endsWith(".md") && !f.startsWith("test-support/src/test/java/com/acme/catalog/testsupport/docs/"))
                .toList();
        assertThat(files).contains("resolver-service/src/main/resources/application.yml");

        assertThat(files.stream().flatMap(f -> references.brokenInCode(f, TREE.text(f).orElse("")).stream()))
                .as("docs named by code that do not exist").isEmpty();
    }

    /**
     * The README's module table names every package of the two services ({@code stream/}) and of the shared modules
     * ({@code contracts.export}, {@code platform.sql}), and no package that does not exist: a package added or
     * removed changes the table.
     */
    @Test
    void theModuleTableNamesEveryPackage() {
        Map<String, String> modules = Map.of(
                "resolver-service", "resolver-service/src/main/java/com/acme/catalog/resolver/",
                "product-service", "product-service/src/main/java/com/acme/catalog/product/",
                "shared-contracts", "shared-contracts/src/main/java/com/acme/catalog/contracts/",
                "shared-platform", "shared-platform/src/main/java/com/acme/catalog/platform/");
        String readme = TREE.text("README.md").orElseThrow();
        for (Map.Entry<String, String> module : modules.entrySet()) {
            String row = readme.lines().filter(l -> l.startsWith("| `" + module.getKey() + "` |")).findFirst()
                    .orElseThrow(() -> new AssertionError("README.md has no module row for " + module.getKey()));
            boolean dotted = module.getKey().startsWith("shared-");
            Pattern named = Pattern.compile(dotted ? "`((?:contracts|platform)\\.[a-z]+)`" : "`([a-z]+)/`");
            Set<String> inTable = new TreeSet<>();
            Matcher m = named.matcher(row);
            while (m.find()) {
                inTable.add(dotted ? m.group(1).substring(m.group(1).indexOf('.') + 1) : m.group(1));
            }
            Set<String> packages = new TreeSet<>();
            for (String f : TREE.files()) {
                if (f.startsWith(module.getValue()) && f.endsWith(".java")) {
                    String rest = f.substring(module.getValue().length());
                    if (rest.indexOf('/') > 0) {
                        packages.add(rest.substring(0, rest.indexOf('/')));
                    }
                }
            }
            assertThat(inTable).as("the packages README.md's module table names for %s", module.getKey())
                    .isEqualTo(packages);
        }
    }

    @Test
    void aPlantedPageFailsOnEveryKindOfBrokenReference() {
        String page = """
                # Planted

                Real: `CursorRepository.lockCursor`, `streams/ProductStreamsProperties`, `platform.sql.BoundSql`,
                `docs/design.md`, `runbooks/restore.md`, bin/demo.sh, [design](design.md#6-the-restore-fence),
                [here](#planted), `StreamWriteConcurrencyIT`, `RetentionBlocked`, `ItemUpserted`, `JdbcClient`,
                `db/resolver`, docs/rebuild.md "Recovery worker", and `architecture.md#events`.

                Broken: `TailApplyIT`, `CursorRepository.lockEverything`, `recovery/ProductStreamsProperties`,
                `contracts.sql.BoundSql`, `contracts.web`, `docs/nothing.md`, `db/nowhere`, bin/nothing.sh,
                [gone](design.md#no-such-heading), [away](nowhere.md), [up](#nowhere), `design.md#nowhere`,
                `NoSuchRepository`, docs/rebuild.md "No such section".

                ```
                mvn verify -Dit.test=GoneIT
                ```
                """;

        List<String> broken = new DocReferences(TREE).broken("docs/planted.md", page);

        assertThat(broken).as("only the broken ones, lines 8 to 14").hasSize(15)
                .allMatch(b -> b.matches("docs/planted\\.md:(8|9|10|11|14): .*"));
        assertThat(String.join("\n", broken)).contains("TailApplyIT names no .java file",
                "lockEverything does not occur", "ProductStreamsProperties is not in a package recovery/",
                "BoundSql is not in a package contracts/sql/", "package contracts.web does not exist",
                "`docs/nothing.md`: no such file", "`db/nowhere`: no such file or directory",
                "script bin/nothing.sh does not exist", "docs/design.md has no heading #no-such-heading",
                "link nowhere.md leads to nothing", "#nowhere is no heading of this page",
                "no type NoSuchRepository", "docs/rebuild.md has no section \"No such section\"",
                "test GoneIT (in -Dit.test=GoneIT) names no .java file");
    }

    @Test
    void anchorsAreGitHubs() {
        assertThat(Markdown.slug("11. Where the contract lives")).isEqualTo("11-where-the-contract-lives");
        assertThat(Markdown.slug("Idempotent writes: `Idempotency-Key`, 503 `OUTCOME_UNKNOWN`"))
                .isEqualTo("idempotent-writes-idempotency-key-503-outcome_unknown");
        assertThat(Markdown.slug("State checksums (`GET /v1/streams/{t}/{c}/state-checksum?profile=`)"))
                .isEqualTo("state-checksums-get-v1streamstcstate-checksumprofile");
        assertThat(Markdown.slug("[design §7](design.md#x): adopted → built")).isEqualTo("design-7-adopted--built");
        assertThat(Markdown.anchors("# A\n## A\n```\n# not a heading\n```\n### A\n"))
                .containsExactly("a", "a-1", "a-2");
    }
}
